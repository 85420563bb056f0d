import Dispatch

/// One writer at a time, in the order asked: blocking work (a file's write and its
/// `fsync`) runs on a dispatch queue of its own, never on Swift's cooperative pool or
/// the main actor's thread unless a synchronous caller chose to wait there.
///
/// The shape of GRDB's database queue: async callers suspend until their work has run
/// (``run(_:)``); the books' synchronous calls wait for it on their own thread
/// (``runBlocking(_:)``); and work can be queued without waiting (``enqueue(_:)``). All
/// three go through one queue, so work runs in the order it was asked for, whichever
/// way it was.
///
/// ```swift
/// let writes = SerialIOQueue(label: "com.example.saves")
/// try await writes.run { try directory.write(archive, to: "items.archive") }
/// ```
public final class SerialIOQueue: Sendable {
    private let queue: DispatchQueue

    /// - Parameter label: the queue's name, as debuggers and crash reports show it.
    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` after the work queued before it; suspends the caller meanwhile,
    /// holding no thread.
    /// - Throws: what `body` throws.
    public func run<Value, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> sending Value
    ) async throws(Failure) -> sending Value {
        try await queue.suspending(body)
    }

    /// Runs `body` after the work queued before it, blocking the calling thread until
    /// it has: for ported synchronous code. Never call it from the cooperative pool, or
    /// from work on this queue.
    /// - Throws: what `body` throws.
    public func runBlocking<Value, Failure: Error>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        preconditionNotOnQueue()
        return try queue.sync { Result(catching: body) }.get()
    }

    /// Stops the process when called from work on this queue: a wait for the queue
    /// from there would never end.
    public func preconditionNotOnQueue() {
        dispatchPrecondition(condition: .notOnQueue(queue))
    }

    /// Queues `body` after the work queued before it, and returns at once.
    public func enqueue(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }
}

extension DispatchQueue {
    /// Runs `body` on this queue and suspends the caller, holding no thread, until it
    /// has: what ``SerialIOQueue/run(_:)`` and ``BlockingIO/run(_:)`` share.
    func suspending<Value, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> sending Value
    ) async throws(Failure) -> sending Value {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            self.async { continuation.resume(returning: Result(catching: body)) }
        }
        return try result.get()
    }
}
