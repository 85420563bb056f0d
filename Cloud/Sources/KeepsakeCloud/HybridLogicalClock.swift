import Foundation
import Locking

/// A hybrid logical clock (Kulkarni et al., 2014): timestamps that follow the wall clock
/// when it moves forward, and still grow when it stands still, jumps back, or lags
/// behind a clock whose changes this replica has seen.
///
/// A replica whose wall clock is behind cannot hide a change it makes after seeing
/// another's: ``receive(_:)`` moves this clock past the remote timestamp, so the next
/// ``tick()`` is later than it.
///
/// ```swift
/// let clock = HybridLogicalClock(replica: "laptop")
/// let stamp = clock.tick()          // a local change
/// clock.receive(remoteStamp)        // a change from elsewhere
/// ```
public final class HybridLogicalClock: Sendable {
    public let replica: String
    private let physicalTime: @Sendable () -> Int64
    private let state: Locked<(milliseconds: Int64, counter: Int64)>

    /// - Parameters:
    ///   - replica: this replica's name, the tie-breaker between equal times.
    ///   - last: the latest timestamp this replica made or saw, so that a restarted
    ///     replica never goes back.
    ///   - physicalTime: milliseconds since 1970; tests pass a clock of their own.
    public init(
        replica: String, last: HybridTimestamp? = nil,
        physicalTime: @escaping @Sendable () -> Int64 = HybridLogicalClock.wallClock
    ) {
        self.replica = replica
        self.physicalTime = physicalTime
        state = Locked((last?.milliseconds ?? 0, last?.counter ?? 0))
    }

    /// Milliseconds since 1970 by the system's clock.
    @Sendable public static func wallClock() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The timestamp of a change made here now, later than every timestamp made or seen.
    public func tick() -> HybridTimestamp {
        let now = physicalTime()
        return state.withLock { state in
            if now > state.milliseconds {
                state = (now, 0)
            } else {
                state.counter += 1
            }
            return HybridTimestamp(milliseconds: state.milliseconds, counter: state.counter, replica: replica)
        }
    }

    /// Moves the clock past `remote`, a change seen from another replica, unless
    /// `remote` is beyond ``HybridTimestamp/maximumDrift`` ahead of this clock's
    /// physical time, or otherwise not one a clock makes: then the clock stays as it
    /// is, and the call returns `false`.
    @discardableResult
    public func receive(_ remote: HybridTimestamp) -> Bool {
        let now = physicalTime()
        guard remote.problem(readAt: now) == nil else { return false }
        state.withLock { state in
            let latest = max(state.milliseconds, remote.milliseconds, now)
            if latest == state.milliseconds && latest == remote.milliseconds {
                state.counter = max(state.counter, remote.counter) + 1
            } else if latest == state.milliseconds {
                state.counter += 1
            } else if latest == remote.milliseconds {
                state.counter = remote.counter + 1
            } else {
                state.counter = 0
            }
            state.milliseconds = latest
        }
        return true
    }

    /// The latest timestamp made or seen, to store with the replica's data.
    public var last: HybridTimestamp {
        state.withLock { HybridTimestamp(milliseconds: $0.milliseconds, counter: $0.counter, replica: replica) }
    }
}
