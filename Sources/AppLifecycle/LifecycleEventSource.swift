/// Something outside the process that moves the application: signals, terminal focus,
/// memory pressure. ``Application/run(sources:)`` runs each in a child task.
///
/// A web page is not a source of its own: its handler calls ``Application/send(_:)``.
public protocol LifecycleEventSource: Sendable {
    /// Watches for events and reports them to `application` until the task is cancelled.
    /// - Throws: whatever keeps the source from watching; the application runs on without it.
    func run(for application: Application) async throws

    /// ``run(for:)``, calling `ready` once the source is listening (its signal handlers
    /// are installed, say), so the application launches only when nothing can be missed.
    /// The default calls `ready` first, then ``run(for:)``.
    func run(for application: Application, whenReady ready: @escaping @Sendable () -> Void) async throws
}

extension LifecycleEventSource {
    public func run(for application: Application, whenReady ready: @escaping @Sendable () -> Void) async throws {
        ready()
        try await run(for: application)
    }
}
