/// Runs deferred work: the coalesced save of user defaults, their check for other
/// processes' changes, the lifecycle's background timers. Injected so tests move time
/// by hand instead of waiting (`ManualScheduler`, test support that
/// `@_spi(Testing) import AppRuntime` brings in); ``SystemScheduler`` waits in real
/// time.
///
/// ```swift
/// struct Immediately: Scheduler {
///     func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) { work() }
/// }
/// ```
public protocol Scheduler: Sendable {
    /// Runs `work` once, about `delay` from now, on any thread.
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void)

    /// Runs `work` once, about `delay` from now, on the main actor: the lifecycle's
    /// timers, whose callbacks reach the app delegate. The default hops there from
    /// ``schedule(after:_:)``'s thread.
    func scheduleOnMainActor(after delay: Duration, _ work: @escaping @MainActor @Sendable () -> Void)
}

extension Scheduler {
    public func scheduleOnMainActor(after delay: Duration, _ work: @escaping @MainActor @Sendable () -> Void) {
        schedule(after: delay) { Task { @MainActor in work() } }
    }
}
