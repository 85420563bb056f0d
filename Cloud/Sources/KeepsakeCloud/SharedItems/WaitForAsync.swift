import Dispatch
import Synchronization

/// Runs `operation` on the cooperative pool and blocks this thread until it ends, or
/// until `timeout` has passed: how the synchronous calls of `ItemStoreBackend` reach
/// the asynchronous database client, which queues requests while the server is away.
/// The calling thread must not be one of the pool's (`ItemStore` calls from the main
/// thread and from its queue of writes), or the pool could wait on itself.
/// - Throws: what `operation` throws; ``DatabaseTimeout`` when it took too long (it
///   goes on, and its result is dropped).
func waitForAsync<Value: Sendable>(
    timeout: Duration, _ operation: @escaping @Sendable () async throws -> Value
) throws -> Value {
    let outcome = Mutex<Result<Value, any Error>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        finished.signal()
    }
    let (seconds, attoseconds) = timeout.components
    let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    guard finished.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else {
        throw DatabaseTimeout(timeout: timeout)
    }
    return try outcome.withLock { $0! }.get()
}
