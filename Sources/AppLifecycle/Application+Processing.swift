import AppRuntime
import AppSandbox
import Foundation
import Locking

/// The application's mutable state, guarded by `Application.machine`.
struct Machine {
    var state: ApplicationState = .notRunning
    var hasLaunched = false
    var hasTerminated = false
    /// Triggers and warnings that arrived before launch, replayed after it.
    var beforeLaunch: [Application.Work] = []

    var queue: [Application.Work] = []
    var queueHead = 0
    var draining = false

    var nextID = 0
    var observers: [Int: Application.Observer] = [:]
    var warningObservers: [Int: @MainActor @Sendable (MemoryWarning) -> Void] = [:]
    var terminationWaiters: [CheckedContinuation<Void, Never>] = []

    // Background time.
    var backgroundEpoch = 0
    var graceElapsed = false
    var tasks: [Int: Application.BackgroundTask] = [:]
    var stopAction: (@Sendable () -> Void)?

    mutating func makeID() -> Int {
        nextID += 1
        return nextID
    }
}

extension Application {
    /// A unit of work for the event loop.
    enum Work {
        case launch
        case trigger(LifecycleTrigger, stopAction: (@Sendable () -> Void)?)
        case memoryWarning(MemoryWarning)
        case graceElapsed(epoch: Int)
        case taskEnded
        case timeExpired(epoch: Int)
        case afterExpiry(epoch: Int)
    }

    /// What processing one unit of work does, in order.
    enum Step {
        case move(ApplicationState)
        case deliver(LifecycleEvent)
        case warn(MemoryWarning)
        case startBackgroundTime(stopAction: (@Sendable () -> Void)?)
        case expire([BackgroundTask])
        case stop(@Sendable () -> Void)
        case finish
    }

    struct Observer {
        var events: Set<LifecycleEvent>?
        var handler: @MainActor @Sendable (LifecycleEvent) -> Void
    }

    /// Queues `work` and, unless someone already is, processes the queue.
    @MainActor
    func enqueue(_ work: Work) {
        let mustDrain = machine.withLock { machine in
            machine.queue.append(work)
            if machine.draining { return false }
            machine.draining = true
            return true
        }
        if mustDrain { drain() }
    }

    @MainActor
    private func drain() {
        while true {
            let steps: [Step]? = machine.withLock { machine in
                guard machine.queueHead < machine.queue.count else {
                    machine.queue.removeAll(keepingCapacity: true)
                    machine.queueHead = 0
                    machine.draining = false
                    return nil
                }
                let work = machine.queue[machine.queueHead]
                machine.queueHead += 1
                return Self.plan(work, machine: &machine, configuration: configuration)
            }
            guard let steps else { return }
            for step in steps { perform(step) }
        }
    }

    /// The steps for `work` from the current state. Runs under the lock; changes only
    /// bookkeeping, never `state` (``perform(_:)`` moves it step by step).
    static func plan(_ work: Work, machine: inout Machine, configuration: Configuration) -> [Step] {
        let state = machine.state
        if machine.hasTerminated { return [] }
        switch work {
        case .launch:
            guard !machine.hasLaunched else { return [] }
            machine.hasLaunched = true
            // Whatever arrived during start-up runs next, before anything queued later.
            machine.queue.insert(contentsOf: machine.beforeLaunch, at: machine.queueHead)
            machine.beforeLaunch = []
            return [.move(.inactive), .deliver(.didFinishLaunching), .move(.active), .deliver(.didBecomeActive)]

        case .trigger, .memoryWarning:
            if !machine.hasLaunched {
                machine.beforeLaunch.append(work)
                return []
            }
        default:
            break
        }
        switch work {
        case .launch:
            return []

        case .memoryWarning(let warning):
            return [.warn(warning)]

        case .trigger(let trigger, let stopAction):
            switch (trigger, state) {
            case (.focusLost, .active):
                return [.deliver(.willResignActive), .move(.inactive)]
            case (.focusGained, .inactive):
                return [.move(.active), .deliver(.didBecomeActive)]
            case (.hidden, .active):
                return [
                    .deliver(.willResignActive), .move(.inactive), .move(.background),
                    .startBackgroundTime(stopAction: stopAction), .deliver(.didEnterBackground),
                ]
            case (.hidden, .inactive):
                return [
                    .move(.background), .startBackgroundTime(stopAction: stopAction), .deliver(.didEnterBackground),
                ]
            case (.hidden, .background):
                // Already in the background; a stop request shortens the grace period.
                guard let stopAction else { return [] }
                machine.stopAction = stopAction
                machine.graceElapsed = true
                return machine.tasks.isEmpty ? suspension(&machine) : []
            case (.hidden, .suspended):
                return stopAction.map { [.stop($0)] } ?? []
            case (.visible, .background):
                machine.backgroundEpoch += 1
                machine.stopAction = nil
                return [.deliver(.willEnterForeground), .move(.inactive), .move(.active), .deliver(.didBecomeActive)]
            case (.visible, .suspended):
                machine.backgroundEpoch += 1
                machine.stopAction = nil
                return [
                    .move(.background), .deliver(.willEnterForeground), .move(.inactive), .move(.active),
                    .deliver(.didBecomeActive),
                ]
            case (.terminate, .active):
                return [
                    .deliver(.willResignActive), .move(.inactive), .move(.background), .deliver(.didEnterBackground),
                ]
                    + termination(&machine)
            case (.terminate, .inactive):
                return [.move(.background), .deliver(.didEnterBackground)] + termination(&machine)
            case (.terminate, .background):
                return termination(&machine)
            case (.terminate, .suspended):
                // iOS kills a suspended app without a callback; a Linux process told to
                // terminate is running again, so it gets the chance to save.
                return [.move(.background)] + termination(&machine)
            default:
                return []
            }

        case .graceElapsed(let epoch):
            guard state == .background, epoch == machine.backgroundEpoch else { return [] }
            machine.graceElapsed = true
            return machine.tasks.isEmpty ? suspension(&machine) : []

        case .taskEnded:
            guard state == .background, machine.graceElapsed, machine.tasks.isEmpty else { return [] }
            return suspension(&machine)

        case .timeExpired(let epoch):
            guard state == .background, epoch == machine.backgroundEpoch else { return [] }
            let open = machine.tasks.values.sorted { $0.id < $1.id }
            return [.expire(open)]

        case .afterExpiry(let epoch):
            guard state == .background, epoch == machine.backgroundEpoch else { return [] }
            machine.tasks.removeAll()
            switch configuration.whenBackgroundTimeExpires {
            case .suspend: return suspension(&machine)
            case .terminate: return termination(&machine)
            }
        }
    }

    private static func suspension(_ machine: inout Machine) -> [Step] {
        machine.backgroundEpoch += 1
        var steps: [Step] = [.move(.suspended), .deliver(.didSuspend)]
        if let stop = machine.stopAction { steps.append(.stop(stop)) }
        return steps
    }

    private static func termination(_ machine: inout Machine) -> [Step] {
        machine.backgroundEpoch += 1
        machine.tasks.removeAll()
        machine.stopAction = nil
        return [.deliver(.willTerminate), .move(.notRunning), .finish]
    }

    @MainActor
    private func perform(_ step: Step) {
        switch step {
        case .move(let next):
            machine.withLock { machine in
                do {
                    machine.state = try machine.state.moved(to: next)
                } catch {
                    assertionFailure("lifecycle planner made an illegal move: \(error)")
                }
            }

        case .deliver(let event):
            delegate?.deliver(event, from: self)
            notificationCenter.post(name: event.notificationName, object: self)
            notify(event)

        case .warn(let warning):
            delegate?.applicationDidReceiveMemoryWarning(self)
            notificationCenter.post(
                name: Self.didReceiveMemoryWarningNotification, object: self,
                userInfo: [MemoryWarning.userInfoKey: warning])
            notify(.didReceiveMemoryWarning)
            let observers = machine.withLock { $0.warningObservers.sorted { $0.key < $1.key }.map(\.value) }
            for observer in observers { observer(warning) }
            warningStreams.yield(warning)

        case .startBackgroundTime(let stopAction):
            let epoch = machine.withLock { machine in
                machine.backgroundEpoch += 1
                machine.graceElapsed = false
                machine.stopAction = stopAction
                return machine.backgroundEpoch
            }
            let grace = stopAction == nil ? configuration.backgroundGracePeriod : .zero
            if grace == .zero {
                enqueue(.graceElapsed(epoch: epoch))
            } else {
                scheduler.scheduleOnMainActor(after: grace) { [weak self] in
                    self?.enqueue(.graceElapsed(epoch: epoch))
                }
            }
            scheduler.scheduleOnMainActor(after: configuration.backgroundTimeLimit) { [weak self] in
                self?.enqueue(.timeExpired(epoch: epoch))
            }

        case .expire(let tasks):
            let epoch = machine.withLock { $0.backgroundEpoch }
            for task in tasks { task.expirationHandler?() }
            enqueue(.afterExpiry(epoch: epoch))

        case .stop(let action):
            action()

        case .finish:
            let waiters = machine.withLock { machine in
                machine.hasTerminated = true
                defer { machine.terminationWaiters.removeAll() }
                return machine.terminationWaiters
            }
            eventStreams.finish()
            warningStreams.finish()
            for waiter in waiters { waiter.resume() }
        }
    }

    @MainActor
    private func notify(_ event: LifecycleEvent) {
        let observers = machine.withLock { $0.observers.sorted { $0.key < $1.key }.map(\.value) }
        for observer in observers where observer.events?.contains(event) ?? true {
            observer.handler(event)
        }
        eventStreams.yield(event)
    }
}
