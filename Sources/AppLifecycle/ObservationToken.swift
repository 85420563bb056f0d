import Synchronization

/// Keeps an observation alive; cancelling it (or letting it go) stops the observation.
///
/// Returned by ``Application/addObserver(for:_:)`` and
/// ``Application/addMemoryWarningObserver(_:)``. Corresponds to the token
/// `NotificationCenter.addObserver(forName:object:queue:using:)` returns, except that
/// dropping the last reference removes the observer too, so keep it in a property.
public final class ObservationToken: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    /// Stops the observation. Calling it again does nothing.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
