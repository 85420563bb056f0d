import Locking

/// Keeps an observation alive; cancelling it (or letting it go) stops the observation.
///
/// Returned by the observing methods of every layer: `Application.addObserver(for:_:)`,
/// `Defaults.observe(_:handler:)`, `Defaults.attach(to:)`. Corresponds to the token
/// `NotificationCenter.addObserver(forName:object:queue:using:)` returns and to
/// `NSKeyValueObservation`, except that dropping the last reference removes the
/// observer too, so keep it in a property.
///
/// ```swift
/// let token = ObservationToken { print("stopped") }
/// token.cancel()   // prints "stopped"
/// token.cancel()   // does nothing
/// ```
public final class ObservationToken: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    /// A token that runs `onCancel` once, on the first ``cancel()`` or when released.
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
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
