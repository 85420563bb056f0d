import Synchronization

/// What the background timers wait on, so tests can move time by hand.
public protocol LifecycleClock: Sendable {
    /// Calls `action` once, `delay` from now, on any thread.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void)
}

/// Real time: each action runs in a detached task after sleeping on the continuous clock.
public struct SystemLifecycleClock: LifecycleClock {
    public init() {}

    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        Task.detached {
            try? await Task.sleep(for: delay, clock: .continuous)
            action()
        }
    }
}

/// Time that moves only when ``advance(by:)`` is called; actions run on the caller's
/// thread in the order they fall due. For tests of background time.
///
/// ```swift
/// let clock = ManualLifecycleClock()
/// let app = Application(configuration: .init(backgroundGracePeriod: .seconds(5)), clock: clock)
/// app.launch()
/// app.send(.hidden)
/// clock.advance(by: .seconds(5))   // app.state == .suspended
/// ```
public final class ManualLifecycleClock: LifecycleClock {
    private struct Pending {
        var due: Duration
        var order: Int
        var action: @Sendable () -> Void
    }

    private struct State {
        var now: Duration = .zero
        var order = 0
        var pending: [Pending] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Time elapsed since the clock was made.
    public var now: Duration { state.withLock { $0.now } }

    /// How many actions wait to fall due.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.order += 1
            state.pending.append(Pending(due: state.now + delay, order: state.order, action: action))
        }
    }

    /// Moves time forward by `duration`, running every action that falls due on the
    /// way, earliest first (actions they schedule within the span run too).
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now + duration }
        while true {
            let next: Pending? = state.withLock { state in
                let due = state.pending.enumerated()
                    .filter { $0.element.due <= target }
                    .min { ($0.element.due, $0.element.order) < ($1.element.due, $1.element.order) }
                guard let due else {
                    state.now = target
                    return nil
                }
                state.pending.remove(at: due.offset)
                state.now = max(state.now, due.element.due)
                return due.element
            }
            guard let next else { return }
            next.action()
        }
    }
}
