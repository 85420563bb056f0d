public import AppRuntime
import Foundation
import Locking

extension Application {
    /// Calls `handler` for each of `events` (every event when `nil`), after the delegate
    /// and the notification center, until the token is cancelled or released.
    /// Handlers run one at a time, on the main actor, before the next event is
    /// processed: work done here (a save) is finished before the process can exit or
    /// stop.
    ///
    /// ```swift
    /// let token = app.addObserver(for: [.didEnterBackground]) { _ in try? store.save() }
    /// ```
    public func addObserver(
        for events: Set<LifecycleEvent>? = nil, _ handler: @escaping @MainActor @Sendable (LifecycleEvent) -> Void
    ) -> ObservationToken {
        let id = machine.withLock { machine in
            let id = machine.makeID()
            machine.observers[id] = Observer(events: events, handler: handler)
            return id
        }
        return ObservationToken { [weak self] in
            self?.machine.withLock { _ = $0.observers.removeValue(forKey: id) }
        }
    }

    /// Calls `handler` for each memory warning (after the delegate and the notification
    /// center, on the main actor) until the token is cancelled or released.
    ///
    /// ```swift
    /// let token = app.addMemoryWarningObserver { _ in imageCache.removeAllObjects() }
    /// ```
    public func addMemoryWarningObserver(_ handler: @escaping @MainActor @Sendable (MemoryWarning) -> Void)
        -> ObservationToken
    {
        let id = machine.withLock { machine in
            let id = machine.makeID()
            machine.warningObservers[id] = handler
            return id
        }
        return ObservationToken { [weak self] in
            self?.machine.withLock { _ = $0.warningObservers.removeValue(forKey: id) }
        }
    }

    /// Every event from now on, as an `AsyncSequence` that ends when the app terminates
    /// (after ``LifecycleEvent/willTerminate``). Each access makes a new sequence;
    /// events are buffered until read.
    ///
    /// ```swift
    /// for await event in app.events where event == .didEnterBackground { try store.save() }
    /// ```
    public var events: AsyncStream<LifecycleEvent> { eventStreams.makeStream() }

    /// Every memory warning from now on; ends when the app terminates.
    public var memoryWarnings: AsyncStream<MemoryWarning> { warningStreams.makeStream() }
}
