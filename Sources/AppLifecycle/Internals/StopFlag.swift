import Locking

/// A flag one thread sets and a polling thread reads.
final class StopFlag: Sendable {
    private let value = Locked(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

extension StopFlag {
    /// A flag that can be cleared again.
    final class Mutable: Sendable {
        private let value = Locked(false)
        /// Stores `new` and returns the previous value.
        func exchange(_ new: Bool) -> Bool {
            value.withLock { value in
                defer { value = new }
                return value
            }
        }
    }
}
