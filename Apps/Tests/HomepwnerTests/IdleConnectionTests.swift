import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Clients that open connections and never use them, as a flood or a leaky client
/// would: the server still answers, and closes the idle ones within its timeout.
@Suite(
    "Idle connections",
    .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"),
    .enabled(if: canOpen(1_200), "the file descriptor limit allows fewer than 1,200 sockets"))
struct IdleConnectionTests: ContainersOfItsOwn {
    let scratch = TemporaryDirectory("homepwner-tests")

    /// A TCP connection to 127.0.0.1:`port` that sends nothing.
    static func connect(to port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0, "socket: \(String(cString: strerror(errno)))")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0, "connect: \(String(cString: strerror(errno)))")
        return socket
    }

    /// Whether the server has closed `socket`: it reads as ended (or reset).
    static func isClosedByServer(_ socket: Int32) -> Bool {
        var byte: UInt8 = 0
        let read = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Homepwner on a port of its own, in this suite's containers, with `flags`.
    func startServer(_ flags: [String]) throws -> ServerProcess {
        try ServerProcess(containers: containers, arguments: ["--port", "0", "--container", containers.path] + flags)
    }

    @Test(
        "1,000 idle connections: a fresh GET answers within 1 s, and the server closes at least 95% of them within its timeout"
    )
    func idleConnectionsAreClosed() async throws {
        let timeout = 5
        let server = try startServer(["--idle-timeout", String(timeout)])
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for _ in 0..<1_000 { sockets.append(try Self.connect(to: server.port)) }
        let opened = ContinuousClock.now

        let start = ContinuousClock.now
        let reply = try await HTTP.send("GET", server.baseURL)
        let took = ContinuousClock.now - start
        #expect(reply.status == 200)
        #expect(took < .seconds(1), "a fresh GET took \(took) beside 1,000 idle connections")

        var closed = 0
        while ContinuousClock.now - opened < .seconds(timeout + 5) {
            closed = sockets.filter(Self.isClosedByServer).count
            if closed == sockets.count { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(closed >= 950, "the server closed \(closed) of 1,000 idle connections within \(timeout + 5) s")
        #expect(try await HTTP.send("GET", server.baseURL).status == 200)
        #expect(try server.terminate() == 0)
    }

    @Test("At the cap, the connection idle longest is closed for a new one, which is answered at once")
    func theCapShedsTheIdle() async throws {
        let server = try startServer(["--idle-timeout", "30", "--max-connections", "20"])
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for _ in 0..<20 { sockets.append(try Self.connect(to: server.port)) }
        let start = ContinuousClock.now
        let reply = try await HTTP.send("GET", server.baseURL)
        let took = ContinuousClock.now - start
        #expect(reply.status == 200)
        #expect(took < .seconds(1), "answered after \(took), while 20 idle connections held the cap")
        // The 20th connection and the GET's each took the last place: two of the
        // earliest went (accepted on several event loops, their order is near enough).
        let deadline = ContinuousClock.now + .seconds(2)
        var closed: [Int] = []
        repeat {
            closed = sockets.indices.filter { Self.isClosedByServer(sockets[$0]) }
            try await Task.sleep(for: .milliseconds(50))
        } while closed.count < 2 && ContinuousClock.now < deadline
        #expect(closed.count == 2, "closed: \(closed)")
        #expect(closed.allSatisfy { $0 < 10 }, "closed: \(closed), not among the earliest")
        #expect(try server.terminate() == 0)
    }

    @Test(
        "80 clients sending their heads a byte a second (slowloris) at a cap of 50: a fresh GET is answered at once, and each is closed at the header deadline, or before for a new one"
    )
    func slowHeadsAreCut() async throws {
        let server = try startServer(["--header-timeout", "2", "--max-connections", "50"])
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for _ in 0..<80 {
            let socket = try Self.connect(to: server.port)
            Self.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", on: socket)
            sockets.append(socket)
        }
        let opened = ContinuousClock.now
        let reply = try await HTTP.send("GET", server.baseURL)
        let took = ContinuousClock.now - opened
        #expect(reply.status == 200)
        #expect(took < .seconds(1), "answered after \(took), while 80 slow heads held the cap")

        // Each byte resets the idle timer (30 s), never the head's deadline.
        var open = sockets
        while !open.isEmpty, ContinuousClock.now - opened < .seconds(8) {
            for socket in open { Self.send("X", on: socket) }
            try await Task.sleep(for: .seconds(1))
            open.removeAll(where: Self.isClosedByServer)
        }
        #expect(open.isEmpty, "\(open.count) of 80 slow heads still open 8 s after the first byte")
        #expect(try await HTTP.send("GET", server.baseURL).status == 200)
        #expect(try server.terminate() == 0)
    }

    /// Sends `text` on `socket`, ignoring a connection the server closed.
    static func send(_ text: String, on socket: Int32) {
        _ = text.utf8CString.withUnsafeBufferPointer { bytes in
            Glibc.send(socket, bytes.baseAddress, bytes.count - 1, Int32(MSG_NOSIGNAL))
        }
    }
}

/// Whether this process may have `count` descriptors open, raising its soft limit if need be.
private func canOpen(_ count: Int) -> Bool {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_RESOURCE, &limit) == 0 else { return false }
    if limit.rlim_cur < rlim_t(count), limit.rlim_max >= rlim_t(count) {
        limit.rlim_cur = rlim_t(count) * 2 < limit.rlim_max ? rlim_t(count) * 2 : limit.rlim_max
        _ = setrlimit(RLIMIT_NOFILE_RESOURCE, &limit)
    }
    return getrlimit(RLIMIT_NOFILE_RESOURCE, &limit) == 0 && limit.rlim_cur >= rlim_t(count)
}

#if canImport(Glibc)
private let RLIMIT_NOFILE_RESOURCE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif
