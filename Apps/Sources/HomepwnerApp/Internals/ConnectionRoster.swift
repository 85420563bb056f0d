import Locking
import NIOCore
import NIOHTTPTypes

/// Keeps slow and idle clients from holding the connections other clients need.
///
/// Two rules, besides the idle timeout:
/// - **A request's head has a deadline.** Once the first byte of a request arrives, its
///   request line and headers must be whole within ``ConnectionLimits/headerTimeout``,
///   or the connection is closed. Each byte resets the idle timer, so a client sending
///   one byte every few seconds (slowloris) would otherwise keep its connection forever.
/// - **At the cap, the idle go first.** When a new connection takes the last place, the
///   connection that has waited longest with no request in flight (idle, or sending a
///   head slowly) is closed. Without it, a new client waits until an idle timeout frees
///   a place, and clients that reconnect as often keep everyone else out.
final class ConnectionRoster: Sendable {
    private struct Member {
        let channel: any Channel
        /// Whether a request is in flight: its head was read and its response not yet sent.
        var isBusy = false
        /// Which of the roster's changes was this member's last.
        var turn: UInt64
    }

    private struct State {
        var members: [ObjectIdentifier: Member] = [:]
        /// Members in the order they became idle, oldest first, from `idleStart`. An
        /// entry whose member changed since (another turn) or left is skipped: each
        /// change costs the same, however many connections there are.
        var idleOrder: [(id: ObjectIdentifier, turn: UInt64)] = []
        var idleStart = 0
        var turns: UInt64 = 0

        mutating func becameIdle(_ id: ObjectIdentifier) {
            turns += 1
            members[id]?.turn = turns
            idleOrder.append((id, turns))
            // Entries of members that went on to other turns pile up below the cap,
            // where nothing is shed: dropped once they outnumber the members.
            if idleOrder.count - idleStart > 2 * members.count + 1_024 {
                idleOrder = idleOrder[idleStart...].filter { members[$0.id]?.turn == $0.turn }
                idleStart = 0
            }
        }

        /// The member idle longest, taken off the roster; `nil` when every other one is busy.
        mutating func takeIdlest(sparing newest: ObjectIdentifier) -> (any Channel)? {
            while idleStart < idleOrder.count {
                let entry = idleOrder[idleStart]
                let member = members[entry.id].flatMap { $0.turn == entry.turn ? $0 : nil }
                if member != nil, entry.id == newest { return nil }
                idleStart += 1
                if let member, !member.isBusy {
                    members[entry.id] = nil
                    return member.channel
                }
            }
            return nil
        }
    }

    let maximum: Int
    let headerTimeout: Duration
    private let state = Locked(State())

    init(maximum: Int, headerTimeout: Duration) {
        self.maximum = maximum
        self.headerTimeout = headerTimeout
    }

    /// The handler each connection's pipeline gets, after HTTP decoding.
    func handler() -> any RemovableChannelHandler { RequestWatch(roster: self) }

    /// Takes in `channel` and, when that leaves no place free, closes the connections
    /// idle longest until one is. The server accepts several connections per wake-up,
    /// so more than one may be over; those closed leave the roster at once.
    fileprivate func joined(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let shed = state.withLock { state -> [any Channel] in
            state.members[id] = Member(channel: channel, turn: 0)
            state.becameIdle(id)
            var leaving: [any Channel] = []
            while state.members.count > maximum - 1, let idlest = state.takeIdlest(sparing: id) {
                leaving.append(idlest)
            }
            return leaving
        }
        for channel in shed { channel.close(promise: nil) }
    }

    fileprivate func mark(_ channel: any Channel, busy: Bool) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            guard state.members[id] != nil else { return }
            if busy {
                state.turns += 1
                state.members[id]?.isBusy = true
                state.members[id]?.turn = state.turns
            } else {
                state.members[id]?.isBusy = false
                state.becameIdle(id)
            }
        }
    }

    fileprivate func left(_ channel: any Channel) {
        _ = state.withLock { $0.members.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// One connection's requests, for its ``ConnectionRoster``: when each starts and ends,
/// and the deadline of a head being read. Lives on the connection's event loop.
private final class RequestWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let roster: ConnectionRoster
    /// Requests whose head was read and whose response has not ended.
    private var inFlight = 0
    private var headDeadline: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(roster: ConnectionRoster) { self.roster = roster }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        roster.joined(context.channel)
        // The decoder holds a partial head back: the bytes are seen before it.
        let watch = ByteWatch { [weak self] in self?.bytesArrived() }
        try? context.pipeline.syncOperations.addHandler(watch, position: .first)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        roster.left(context.channel)
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        roster.left(context.channel)
        context.fireChannelInactive()
    }

    /// Bytes arrived between requests: a head begins, and must be whole in time.
    private func bytesArrived() {
        guard inFlight == 0, headDeadline == nil, let context else { return }
        let (seconds, attoseconds) = roster.headerTimeout.components
        headDeadline = context.eventLoop.assumeIsolated().scheduleTask(
            in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        ) { [weak self] in
            self?.context?.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            headDeadline?.cancel()
            headDeadline = nil
            inFlight += 1
            roster.mark(context.channel, busy: true)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inFlight = max(0, inFlight - 1)
            if inFlight == 0 { roster.mark(context.channel, busy: false) }
        }
        context.write(data, promise: promise)
    }
}

/// Tells of every read of raw bytes, before HTTP decoding.
private final class ByteWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let onBytes: () -> Void

    init(onBytes: @escaping () -> Void) { self.onBytes = onBytes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        onBytes()
        context.fireChannelRead(data)
    }
}
