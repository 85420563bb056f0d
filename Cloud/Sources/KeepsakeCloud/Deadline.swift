import Locking

/// The result of `operation`; or ``CloudDatabaseError`` (`.timedOut`) when it has not ended within
/// `timeout` (never, when `timeout` is `nil`); or `CancellationError` when the calling
/// task is cancelled first. The operation is cancelled when it loses, but not waited
/// for: a call into a client that ignores cancellation must not hold its caller.
func withDeadline<Value: Sendable>(
    _ timeout: Duration?, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let race = DeadlineRace<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation, timeout: timeout, operation)
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// An operation, a timer and the caller's cancellation, of which the first to finish
/// gives the outcome.
private final class DeadlineRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var finished: Result<Value, any Error>?
        var contenders: [Task<Void, Never>] = []
    }

    private let state = Locked(State())

    func start(
        _ continuation: CheckedContinuation<Value, any Error>, timeout: Duration?,
        _ operation: @escaping @Sendable () async throws -> Value
    ) {
        let work = Task {
            do { self.finish(.success(try await operation())) } catch { self.finish(.failure(error)) }
        }
        let timer = Task {
            guard let timeout, (try? await Task.sleep(for: timeout)) != nil else { return }
            self.finish(.failure(CloudDatabaseError.timedOut(after: timeout)))
        }
        // The operation may have ended, or the caller been cancelled, before this runs.
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let finished = state.finished { return finished }
            state.continuation = continuation
            state.contenders = [work, timer]
            return nil
        }
        if let early {
            work.cancel()
            timer.cancel()
            continuation.resume(with: early)
        }
    }

    func finish(_ outcome: Result<Value, any Error>) {
        let (continuation, contenders) = state.withLock { state in
            guard state.finished == nil else {
                return (nil, []) as (CheckedContinuation<Value, any Error>?, [Task<Void, Never>])
            }
            state.finished = outcome
            defer { (state.continuation, state.contenders) = (nil, []) }
            return (state.continuation, state.contenders)
        }
        for contender in contenders { contender.cancel() }
        continuation?.resume(with: outcome)
    }
}
