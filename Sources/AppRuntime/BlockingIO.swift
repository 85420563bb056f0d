import Dispatch

/// Runs blocking work (a file read, an `fsync`, a lock wait) from async code without
/// holding one of Swift's cooperative threads or the main actor: the work runs on a
/// dispatch queue of the library's own, and the caller suspends until it ends. Work
/// runs beside other work, as many at once as the system's dispatch threads allow; for
/// work that must run in order, a ``SerialIOQueue``.
///
/// ```swift
/// try await BlockingIO.run { () throws(DefaultsError) in try defaults.flush() }
/// ```
public enum BlockingIO {
    private static let queue = DispatchQueue(label: "keepsake.blocking-io", attributes: .concurrent)

    /// Runs `body` off the cooperative pool and returns what it returns. The result
    /// need not be `Sendable`: made by `body` and handed over whole (`sending`), as
    /// models decoded from a file are.
    /// - Throws: what `body` throws.
    public static func run<Value, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> sending Value
    ) async throws(Failure) -> sending Value {
        try await queue.suspending(body)
    }
}
