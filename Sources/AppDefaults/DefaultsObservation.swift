/// Keeps an observation alive; it ends with ``cancel()`` or when this is released.
/// Corresponds to `NSKeyValueObservation`.
public final class DefaultsObservation: Sendable {
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the observation; calling it again does nothing.
    public func cancel() { onCancel() }

    deinit { onCancel() }
}
