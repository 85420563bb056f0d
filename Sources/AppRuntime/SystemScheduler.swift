/// Real time: work waits on the continuous clock and then runs on the process's one
/// timer thread, never on Swift's cooperative pool, so work that blocks (a save that
/// writes and `fsync`s a file) cannot starve async code.
///
/// Work runs one item at a time, earliest deadline first: long work delays the work
/// due after it. The thread is started on first use and lives as long as the process.
///
/// ```swift
/// SystemScheduler().schedule(after: .seconds(2)) { try? defaults.flush() }
/// ```
public struct SystemScheduler: Scheduler {
    public init() {}

    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        TimerThread.shared.schedule(at: .now + delay, work)
    }
}
