import Foundation
import KeepsakeCloud
import Locking
import Testing

#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
/// A send to a peer gone raises EPIPE, not SIGPIPE, which would end the test process.
private let noSignal = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
private let noSignal: Int32 = 0
#endif

/// A TCP proxy on 127.0.0.1 in front of the test database that can stop answering:
/// while stalled, it accepts connections and holds them without a byte, as a server
/// that hangs does; otherwise it forwards each new connection to the database. It can
/// also lose the answer to a COMMIT, as a server stopped just after committing does.
final class StallingProxy: Sendable {
    let port: UInt16
    private let listener: Int32
    private let target: UInt16
    private let stalled = Locked(true)
    private let cuttingAtCommit = Locked(false)
    /// How many held connections have sent something: clients waiting on an answer that
    /// does not come.
    private let heldRequests = Locked(0)
    /// Every socket it opened, closed by ``close()``.
    private let sockets = Locked<[Int32]>([])

    init(to target: UInt16) throws {
        self.target = target
        let listener = socket(AF_INET, streamSocket, 0)
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard listener >= 0, bound == 0, listen(listener, 64) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// A proxy in front of the test database, stalled, and the database's URL through it.
    static func inFrontOfTheTestDatabase() throws -> (proxy: StallingProxy, url: String) {
        let url = try #require(TestDatabase.url)
        var components = try #require(URLComponents(string: url))
        let proxy = try StallingProxy(to: try #require(components.port.map(UInt16.init)))
        components.port = Int(proxy.port)
        return (proxy, try #require(components.string))
    }

    /// Forwards new connections, or holds them unanswered.
    func stall(_ stalls: Bool) { stalled.withLock { $0 = stalls } }

    /// The database goes away: every connection so far ends, and new ones are held
    /// unanswered until `stall(false)`.
    func cutOff() {
        stall(true)
        for socket in sockets.withLock({ $0 }) { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// The next COMMIT a client sends reaches the server, and the client's connection
    /// ends before the server's answer: the transaction is committed, and the client
    /// cannot know it.
    func cutAtNextCommit() { cuttingAtCommit.withLock { $0 = true } }

    /// Waits, at most `limit`, until a held connection has sent something: from then on,
    /// a call through it waits on the server that never answers.
    func waitUntilHoldingARequest(within limit: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + limit
        while heldRequests.withLock({ $0 }) == 0 {
            try #require(ContinuousClock.now < deadline, "no client sent anything to the stalled proxy")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Stops accepting and ends every connection. The connections' sockets are shut
    /// down, not closed: a forwarding thread may still hold one, and a closed number
    /// can be given to another file at once.
    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        for socket in sockets.withLock({ $0 }) { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private func acceptConnections() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            sockets.withLock { $0.append(client) }
            if stalled.withLock({ $0 }) {
                Thread.detachNewThread { [self] in countRequest(on: client) }
                continue
            }
            let server = socket(AF_INET, streamSocket, 0)
            sockets.withLock { $0.append(server) }
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                shutdown(client, Int32(SHUT_RDWR))
                continue
            }
            Thread.detachNewThread { [self] in pump(from: client, to: server, cuttingAtCommit: true) }
            Thread.detachNewThread { [self] in pump(from: server, to: client, cuttingAtCommit: false) }
        }
    }

    /// Counts `client` among ``heldRequests`` once its first bytes arrive, which it
    /// peeks at and leaves unread, as a server that hangs does.
    private func countRequest(on client: Int32) {
        var byte: UInt8 = 0
        var peeked: Int
        repeat { peeked = recv(client, &byte, 1, Int32(MSG_PEEK)) } while peeked < 0 && errno == EINTR
        if peeked > 0 { heldRequests.withLock { $0 += 1 } }
    }

    /// Forwards what `source` sends to `destination` until either ends. With
    /// `cuttingAtCommit`, `source` is the client: once told, its COMMIT is forwarded
    /// only after its own socket is shut, so the answer has nowhere to go.
    private func pump(from source: Int32, to destination: Int32, cuttingAtCommit watching: Bool) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let commit = Array("COMMIT".utf8)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            if watching, buffer[..<count].contains(commit),
                cuttingAtCommit.withLock({ cutting in
                    defer { cutting = false }
                    return cutting
                })
            {
                shutdown(source, Int32(SHUT_RDWR))
            }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes {
                    send(destination, $0.baseAddress! + sent, count - sent, noSignal)
                }
                guard written > 0 else {
                    shutdown(source, Int32(SHUT_RDWR))
                    return
                }
                sent += written
            }
        }
        shutdown(destination, Int32(SHUT_RDWR))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// A running ``CloudDatabase`` that reaches the test database through a
/// ``StallingProxy``, stalled until told otherwise. ``close()`` stops both.
final class ProxiedDatabase: Sendable {
    let proxy: StallingProxy
    let database: CloudDatabase
    private let running: Task<Void, any Error>

    init() throws {
        let (proxy, url) = try StallingProxy.inFrontOfTheTestDatabase()
        let database = try CloudDatabase(url: url)
        self.proxy = proxy
        self.database = database
        running = Task { try await database.run() }
    }

    func close() {
        running.cancel()
        proxy.close()
    }
}
