public import AppRuntime
import Foundation
import Locking
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
        let id = state.withLock { state in
            let id = state.nextObserverID
            state.nextObserverID += 1
            state.observers[key, default: [:]][id] = handler
            return id
        }
        return ObservationToken { [weak self] in
            self?.state.withLock { state in
                state.observers[key]?[id] = nil
                if state.observers[key]?.isEmpty == true { state.observers[key] = nil }
            }
        }
    }

    /// The changes of `key`, as an asynchronous sequence that lasts until the consumer
    /// stops iterating.
    ///
    /// ```swift
    /// for await change in defaults.changes(forKey: "volume") { print(change.newValue ?? "removed") }
    /// ```
    public func changes(forKey key: String) -> AsyncStream<DefaultsChange> {
        ChangeStreams.observing { yield in observe(key, handler: yield) }
    }

    /// Hands `changes` to their observers and posts ``didChangeNotification``; never
    /// called under the state mutex.
    func deliver(_ changes: [DefaultsChange], alwaysPost: Bool = false) {
        guard alwaysPost || !changes.isEmpty else { return }
        if !changes.isEmpty {
            let handlers = state.withLock { state in
                changes.map { change in (change, state.observers[change.key].map { Array($0.values) } ?? []) }
            }
            for (change, forKey) in handlers {
                for handler in forKey { handler(change) }
            }
        }
        NotificationCenter.default.post(name: Self.didChangeNotification, object: self)
    }
}
