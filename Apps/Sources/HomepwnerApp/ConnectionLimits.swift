#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many connections the server holds, and how long one may sit idle.
///
/// Why: a connection costs a file descriptor until it closes, and the stores need
/// descriptors too (the container's files, journals, database connections). Clients
/// that open connections and never use them would otherwise take every one, and a
/// fresh request, or a save, would then fail.
public struct ConnectionLimits: Sendable {
    /// A connection with no request in flight is closed after this long; a browser
    /// opens a new one when it needs it.
    public var idleTimeout: Duration = .seconds(30)
    /// The most connections open at once; `nil`: as many as the process's file
    /// descriptors allow, less ``reservedDescriptors``. At the cap the server stops
    /// accepting: a new connection waits in the kernel's listen backlog (256 deep)
    /// until an open one closes, which an idle one does within ``idleTimeout``.
    public var maximumConnections: Int?

    /// The descriptors kept for everything but connections.
    public static let reservedDescriptors = 256

    public init(idleTimeout: Duration = .seconds(30), maximumConnections: Int? = nil) {
        self.idleTimeout = idleTimeout
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
