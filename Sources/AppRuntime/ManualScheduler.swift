import Locking

/// Time that moves only when ``advance(by:)`` is called; work runs on the caller's
/// thread in the order it falls due. For tests of deferred saves and background time.
/// Work scheduled for the main actor (the lifecycle's timers) runs in place too, so a
/// scheduler holding such work must be advanced from the main actor.
///
/// ```swift
/// let scheduler = ManualScheduler()
/// let app = Application(configuration: .init(backgroundGracePeriod: .seconds(5)), scheduler: scheduler)
/// app.launch()
/// app.send(.hidden)
/// scheduler.advance(by: .seconds(5))   // app.state == .suspended
/// ```
@_spi(Testing) public final class ManualScheduler: Scheduler {
    private struct Pending {
        var due: Duration
        var order: Int
        var work: Work
    }

    private enum Work {
        case anyThread(@Sendable () -> Void)
        case mainActor(@MainActor @Sendable () -> Void)
    }

    private struct State {
        var now: Duration = .zero
        var order = 0
        var pending: [Pending] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Time elapsed since the scheduler was made.
    public var now: Duration { state.withLock { $0.now } }

    /// How much work waits to fall due.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.order += 1
            state.pending.append(Pending(due: state.now + delay, order: state.order, work: .anyThread(work)))
        }
    }

    public func scheduleOnMainActor(after delay: Duration, _ work: @escaping @MainActor @Sendable () -> Void) {
        state.withLock { state in
            state.order += 1
            state.pending.append(Pending(due: state.now + delay, order: state.order, work: .mainActor(work)))
        }
    }

    /// Moves time forward by `duration`, running all work that falls due on the way,
    /// earliest first (work it schedules within the span runs too).
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
            switch next.work {
            case .anyThread(let work): work()
            case .mainActor(let work): MainActor.assumeIsolated(work)
            }
        }
    }
}
