/// Runs the deferred work of ``Defaults``: the coalesced save after a change and the
/// check for other processes' changes. Injected so tests run it by hand instead of
/// waiting.
///
/// ```swift
/// struct Immediately: DefaultsScheduler {
///     func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) { work() }
/// }
/// ```
public protocol DefaultsScheduler: Sendable {
    /// Runs `work` once, about `delay` from now, on any thread.
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void)
}
