public import AppSandbox
import Foundation
import PropertyList

extension Defaults {
    /// Calls `handler` after every change of `key`'s winning value: this process's
    /// sets and removals, registrations, and other processes' saves to a shared
    /// domain. Local changes are delivered on the thread that made them, after the
    /// change; others' on the thread that noticed them.
    /// Corresponds to key-value observing `UserDefaults` (`observe(\.key)`).
    ///
    /// ```swift
    /// let token = defaults.observe("volume") { change in player.volume = change.newValue?.doubleValue ?? 1 }
    /// ```
    public func observe(_ key: String, handler: @escaping @Sendable (DefaultsChange) -> Void) -> ObservationToken {
        lock.lock()
        let id = nextObserverID
        nextObserverID += 1
        observers[key, default: [:]][id] = handler
        lock.unlock()
        return ObservationToken { [weak self] in
            guard let self else { return }
            self.lock.lock()
            self.observers[key]?[id] = nil
            if self.observers[key]?.isEmpty == true { self.observers[key] = nil }
            self.lock.unlock()
        }
    }

    /// The changes of `key`, as an asynchronous sequence that lasts until the consumer
    /// stops iterating.
    ///
    /// ```swift
    /// for await change in defaults.changes(forKey: "volume") { print(change.newValue ?? "removed") }
    /// ```
    public func changes(forKey key: String) -> AsyncStream<DefaultsChange> {
        AsyncStream { continuation in
            let observation = observe(key) { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    /// Hands `changes` to their observers and posts ``didChangeNotification``; never
    /// called under the lock.
    func deliver(_ changes: [DefaultsChange], alwaysPost: Bool = false) {
        guard alwaysPost || !changes.isEmpty else { return }
        if !changes.isEmpty {
            lock.lock()
            let handlers = changes.map { change in (change, observers[change.key].map { Array($0.values) } ?? []) }
            lock.unlock()
            for (change, forKey) in handlers {
                for handler in forKey { handler(change) }
            }
        }
        NotificationCenter.default.post(name: Self.didChangeNotification, object: self)
    }
}
