import Synchronization

/// A flag one thread sets and a polling thread reads.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

extension StopFlag {
    /// A flag that can be cleared again.
    final class Mutable: Sendable {
        private let value = Atomic<Bool>(false)
        /// Stores `new` and returns the previous value.
        func exchange(_ new: Bool) -> Bool { value.exchange(new, ordering: .acquiringAndReleasing) }
    }
}
