/// Where an application is in its life.
///
/// Corresponds to `UIApplication.State` plus the two states iOS describes but does not
/// report (not running, suspended). The legal moves are the ones iOS makes:
///
/// ```
/// notRunning → inactive ⇄ active
///              inactive → background ⇄ suspended
///            background → inactive (entering the foreground)
/// background, suspended → notRunning (terminated)
/// ```
public enum ApplicationState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Not launched yet, or terminated.
    case notRunning
    /// In the foreground but not receiving events (a focus loss, an alert on top).
    case inactive
    /// In the foreground and receiving events.
    case active
    /// Not visible, still running code: the time to save.
    case background
    /// Not running code. On iOS the system suspends an app without telling it; here the
    /// event stream reports ``LifecycleEvent/didSuspend`` so a process can be stopped.
    case suspended

    public var description: String { rawValue }

    /// Whether iOS ever moves an app from `self` straight to `next`.
    public func canMove(to next: ApplicationState) -> Bool {
        switch (self, next) {
        case (.notRunning, .inactive),
            (.inactive, .active), (.active, .inactive),
            (.inactive, .background), (.background, .inactive),
            (.background, .suspended), (.suspended, .background),
            (.background, .notRunning), (.suspended, .notRunning):
            true
        default:
            false
        }
    }

    /// The state after moving to `next`.
    /// - Throws: ``LifecycleError`` `.illegalTransition` when iOS never makes that move.
    public func moved(to next: ApplicationState) throws(LifecycleError) -> ApplicationState {
        guard canMove(to: next) else {
            throw LifecycleError(.illegalTransition, "an application cannot move from \(self) to \(next)")
        }
        return next
    }

    /// Whether the application is in the foreground (`inactive` or `active`).
    public var isForeground: Bool { self == .inactive || self == .active }
}
