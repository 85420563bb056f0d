public import AppRuntime
public import Foundation
import Locking

/// The running application: its state, its delegate, and the events that move it.
///
/// Corresponds to `UIApplication`. A process has one, made at start-up; tests make as
/// many as they like, with their own clock and notification center, and drive them
/// with ``send(_:)``. Nothing happens until ``launch()`` (or ``run(sources:)``, which
/// launches and then listens to event sources until the app terminates).
///
/// Events are processed one at a time on the main actor, as UIKit processes them on the
/// main thread: a trigger becomes a list of legal state moves and callbacks, and each
/// callback is delivered to the delegate, then posted on the notification center, then
/// handed to observers and event streams, before the next one starts. A trigger sent
/// from a callback is queued and processed after the current one; ``send(_:)`` then
/// returns early. Event sources run off the main actor and hop to it to send; the
/// state, background tasks' bookkeeping and the observer lists may be read and changed
/// from any thread.
///
/// Which Linux event leads to which callbacks (see ``SignalEventSource``):
///
/// | Linux | Trigger | Callbacks |
/// |---|---|---|
/// | start-up | ``launch()`` | did finish launching, did become active |
/// | terminal focus out / in | ``LifecycleTrigger/focusLost`` / ``LifecycleTrigger/focusGained`` | will resign active / did become active |
/// | `SIGTSTP` | ``LifecycleTrigger/hidden``, then stop | will resign active, did enter background, (process stopped) |
/// | `SIGHUP` | ``LifecycleTrigger/hidden`` | will resign active, did enter background |
/// | `SIGCONT` | ``LifecycleTrigger/visible`` | will enter foreground, did become active |
/// | `SIGTERM`, `SIGINT` | ``LifecycleTrigger/terminate`` | will resign active, did enter background, will terminate |
/// | `SIGKILL`, `SIGSTOP` | — | none: the kernel gives the process no chance, as iOS gives none to an app killed while suspended. Save on entering the background. |
///
/// ```swift
/// let app = Application(delegate: AppDelegate())
/// itemStore.attach(to: app)                       // saves on background and termination
/// await app.run(sources: [SignalEventSource(), MemoryPressureEventSource()])
/// ```
public final class Application: Sendable {
    /// Timings and policies of an application.
    public struct Configuration: Sendable {
        /// How long the app keeps running after entering the background when no
        /// background task is open, before it is suspended. iOS gives about 5 seconds.
        public var backgroundGracePeriod: Duration
        /// How long, from entering the background, open background tasks may run before
        /// their expiration handlers are called. iOS gives about 30 seconds. Never shorter
        /// than the grace period (a shorter value is raised to it).
        public var backgroundTimeLimit: Duration
        /// What happens when background time has run out and the expiration handlers
        /// have run.
        public var whenBackgroundTimeExpires: ExpiryAction

        /// What happens when background time runs out.
        public enum ExpiryAction: Sendable, Hashable {
            /// The app is suspended (open tasks are forgotten).
            case suspend
            /// The app terminates (will terminate is delivered, then not running).
            case terminate
        }

        public init(
            backgroundGracePeriod: Duration = .seconds(3),
            backgroundTimeLimit: Duration = .seconds(30),
            whenBackgroundTimeExpires: ExpiryAction = .suspend
        ) {
            self.backgroundGracePeriod = backgroundGracePeriod
            self.backgroundTimeLimit = max(backgroundTimeLimit, backgroundGracePeriod)
            self.whenBackgroundTimeExpires = whenBackgroundTimeExpires
        }
    }

    /// The delegate, told about every state change. Corresponds to `UIApplication.delegate`.
    public let delegate: (any ApplicationDelegate)?
    public let configuration: Configuration
    /// Where the lifecycle notifications are posted; `NotificationCenter.default` unless
    /// another was given.
    public let notificationCenter: NotificationCenter
    let scheduler: any Scheduler
    let machine = Locked(Machine())
    /// What ``events`` and ``memoryWarnings`` hand out; finished on termination.
    let eventStreams = ChangeStreams<LifecycleEvent>()
    let warningStreams = ChangeStreams<MemoryWarning>()

    /// - Parameters:
    ///   - delegate: told about every state change.
    ///   - configuration: how long background time lasts and what happens when it runs out.
    ///   - scheduler: what background timers wait on; tests pass a `ManualScheduler`.
    ///   - notificationCenter: where notifications are posted; tests pass their own so
    ///     parallel tests do not see each other's events.
    public init(
        delegate: (any ApplicationDelegate)? = nil,
        configuration: Configuration = Configuration(),
        scheduler: any Scheduler = SystemScheduler(),
        notificationCenter: NotificationCenter = .default
    ) {
        self.delegate = delegate
        self.configuration = configuration
        self.scheduler = scheduler
        self.notificationCenter = notificationCenter
    }

    /// The current state. Corresponds to `UIApplication.applicationState`.
    public var state: ApplicationState { machine.withLock { $0.state } }

    /// Moves a not-running app to active: did finish launching, then did become
    /// active. Does nothing after the first call. Triggers and memory warnings that
    /// arrived before are processed right after it, in order.
    @MainActor
    public func launch() {
        enqueue(.launch)
    }

    /// Reports what an event source saw; see ``LifecycleTrigger``. Returns when the
    /// trigger has been processed, unless a callback further up the stack is processing
    /// events, which then processes this one next.
    @MainActor
    public func send(_ trigger: LifecycleTrigger) {
        enqueue(.trigger(trigger, stopAction: nil))
    }

    /// Enters the background like ``LifecycleTrigger/hidden``, but suspends as soon as no
    /// background task is open (no grace period) and then calls `stop` (which for
    /// `SIGTSTP` stops the process). Already suspended: calls `stop` at once.
    @MainActor
    package func sendHidden(thenStop stop: @escaping @Sendable () -> Void) {
        enqueue(.trigger(.hidden, stopAction: stop))
    }

    /// Sends a memory warning to the delegate, the notification center, observers and
    /// streams, as if memory were short. Corresponds to the Simulator's "Simulate
    /// Memory Warning" (`UIApplication`'s private `_performMemoryWarning`).
    @MainActor
    public func simulateMemoryWarning() {
        enqueue(.memoryWarning(MemoryWarning(origin: .simulated)))
    }

    /// Delivers a memory warning raised by a monitor.
    @MainActor
    public func receiveMemoryWarning(_ warning: MemoryWarning) {
        enqueue(.memoryWarning(warning))
    }

    /// Starts `sources`, launches the app once they are all listening, runs them until
    /// the app terminates (a source sent ``LifecycleTrigger/terminate``, or some code
    /// did), then stops them and returns. Returns at once for an app that has already
    /// terminated.
    ///
    /// ```swift
    /// await app.run(sources: [SignalEventSource()])
    /// exit(0)   // SIGTERM: callbacks delivered, stores saved
    /// ```
    @MainActor
    public func run(sources: [any LifecycleEventSource] = []) async {
        let pending = Locked(sources.count)
        await withTaskGroup(of: Void.self) { group in
            await withCheckedContinuation { (allReady: CheckedContinuation<Void, Never>) in
                if sources.isEmpty { allReady.resume() }
                for source in sources {
                    let once = Locked(false)
                    let ready: @Sendable () -> Void = {
                        let first = once.withLock { fired in
                            defer { fired = true }
                            return !fired
                        }
                        guard first else { return }
                        if pending.withLock({
                            $0 -= 1
                            return $0 == 0
                        }) {
                            allReady.resume()
                        }
                    }
                    group.addTask {
                        // A source that fails before it is ready must not hold up the launch.
                        defer { ready() }
                        try? await source.run(for: self, whenReady: ready)
                    }
                }
            }
            launch()
            await untilTerminated()
            group.cancelAll()
        }
    }

    /// Waits until the app has terminated (returns at once if it has).
    public func untilTerminated() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = machine.withLock { machine in
                if machine.hasTerminated { return true }
                machine.terminationWaiters.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
    }
}
