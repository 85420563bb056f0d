#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many connections the server holds, how long one may sit idle, and how long a
/// request's head may take to arrive.
///
/// Why: a connection costs a file descriptor until it closes, and the stores need
/// descriptors too (the container's files, journals, database connections). Clients
/// that open connections and never use them would otherwise take every one, and a
/// fresh request, or a save, would then fail.
package struct ConnectionLimits: Sendable {
    /// A connection with no request in flight is closed after this long; a browser
    /// opens a new one when it needs it.
    package var idleTimeout: Duration = .seconds(30)
    /// Once a request's first byte arrives, its request line and headers must be whole
    /// within this, or the connection is closed: a client sending a byte at a time
    /// (slowloris) cannot hold it.
    package var headerTimeout: Duration = .seconds(10)
    /// The most connections open at once; `nil`: as many as the process's file
    /// descriptors allow, less ``reservedDescriptors``. When a new connection takes the
    /// last place, the one that has waited longest with no request in flight (idle, or
    /// sending its head) is closed, so the next client is served at once. Should every
    /// connection be busy, the server stops accepting: a new connection waits in the
    /// kernel's listen backlog (256 deep) until one closes.
    package var maximumConnections: Int?

    /// The descriptors kept for everything but connections.
    package static let reservedDescriptors = 256

    package init(
        idleTimeout: Duration = .seconds(30), headerTimeout: Duration = .seconds(10), maximumConnections: Int? = nil
    ) {
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.maximumConnections = maximumConnections
    }

    /// The cap on connections. Without one given, first raises the process's soft
    /// limit on open files to its hard limit, as Go's runtime does at start: the soft
    /// limit (often 1,024) is a default for programs that never ask, not a policy.
    func resolvedMaximum() -> Int {
        if let maximumConnections { return maximumConnections }
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_RESOURCE, &limit) == 0 else { return 1_024 - Self.reservedDescriptors }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(RLIMIT_NOFILE_RESOURCE, &raised) == 0 { limit = raised }
        }
        let descriptors = Int(clamping: min(limit.rlim_cur, 1 << 20))
        return max(64, descriptors - Self.reservedDescriptors)
    }
}

#if canImport(Glibc)
private let RLIMIT_NOFILE_RESOURCE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
private let RLIMIT_NOFILE_RESOURCE = RLIMIT_NOFILE
#endif
