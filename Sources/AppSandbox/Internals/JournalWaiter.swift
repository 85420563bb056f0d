import Foundation

/// Who waits for a journal ticket: a task, suspended, or a thread, blocked (the books'
/// synchronous calls).
enum Waiter: Sendable {
    case task(CheckedContinuation<Result<Void, SandboxError>, Never>)
    case thread(ThreadWakeup)

    func resume(_ outcome: Result<Void, SandboxError>) {
        switch self {
        case .task(let continuation): continuation.resume(returning: outcome)
        case .thread(let wakeup): wakeup.resume(outcome)
        }
    }
}

/// Blocks one thread until the outcome it waits for is set, once.
///
/// `@unchecked Sendable`: `outcome` is read and written only under `condition`'s lock.
final class ThreadWakeup: @unchecked Sendable {
    private let condition = NSCondition()
    private var outcome: Result<Void, SandboxError>?

    func wait() -> Result<Void, SandboxError> {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let outcome { return outcome }
            condition.wait()
        }
    }

    func resume(_ outcome: Result<Void, SandboxError>) {
        condition.lock()
        self.outcome = outcome
        condition.signal()
        condition.unlock()
    }
}
