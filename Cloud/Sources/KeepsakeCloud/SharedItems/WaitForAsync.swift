import Dispatch
import Synchronization

/// Runs `operation` on the cooperative pool and blocks this thread until it ends: how
/// the synchronous calls of `ItemStoreBackend` reach the asynchronous database client.
/// The calling thread must not be one of the pool's (`ItemStore` calls from the main
/// thread and from its queue of writes), or the pool could wait on itself.
func waitForAsync<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
    let outcome = Mutex<Result<Value, any Error>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        finished.signal()
    }
    finished.wait()
    return try outcome.withLock { $0! }.get()
}
