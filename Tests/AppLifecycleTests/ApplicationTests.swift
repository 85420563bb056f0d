@_spi(Testing) import AppRuntime
import AppSandbox
import Foundation
import Testing

@testable import AppLifecycle

@Suite @MainActor struct ApplicationTests {
    @Test func launchCallsFinishLaunchingThenBecomeActive() {
        let harness = Harness()
        #expect(harness.app.state == .notRunning)
        harness.app.launch()
        #expect(harness.delegate.calls == ["didFinishLaunching", "didBecomeActive"])
        #expect(harness.app.state == .active)
        harness.app.launch()
        #expect(harness.delegate.calls.count == 2, "a second launch must do nothing")
    }

    @Test(
        "The books' application(_:didFinishLaunchingWithOptions:) is called at launch, after will-finish, with no options"
    )
    func applesLaunchSpellingsAreCalled() {
        let seen = Recorder<String>()
        final class BooksDelegate: ApplicationDelegate {
            let seen: Recorder<String>
            init(_ seen: Recorder<String>) { self.seen = seen }
            func application(
                _ application: Application,
                willFinishLaunchingWithOptions launchOptions: [ApplicationLaunchOptionsKey: Any]?
            ) -> Bool {
                seen.append("willFinishLaunching:\(launchOptions == nil)")
                return true
            }
            func application(
                _ application: Application,
                didFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?
            ) -> Bool {
                seen.append("didFinishLaunchingWithOptions:\(application.state)")
                return true
            }
            // Apple calls this one only for a delegate without the method above.
            func applicationDidFinishLaunching(_ application: Application) { seen.append("didFinishLaunching") }
            func applicationDidBecomeActive(_ application: Application) { seen.append("didBecomeActive") }
        }
        let app = Application(
            delegate: BooksDelegate(seen), scheduler: ManualScheduler(), notificationCenter: NotificationCenter())
        app.launch()
        #expect(
            seen.all == [
                "willFinishLaunching:true", "didFinishLaunchingWithOptions:inactive", "didBecomeActive",
            ])
    }

    @Test func triggersBeforeLaunchRunRightAfterIt() {
        let harness = Harness()
        harness.app.send(.hidden)
        harness.app.simulateMemoryWarning()
        #expect(harness.delegate.calls.isEmpty, "nothing is delivered before launch")
        #expect(harness.app.state == .notRunning)
        harness.app.launch()
        #expect(
            harness.delegate.calls == [
                "didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground",
                "didReceiveMemoryWarning",
            ])
    }

    @Test func runLaunchesOnlyOnceEverySourceIsListening() async {
        struct SlowSource: LifecycleEventSource {
            let log: Recorder<String>
            func run(for application: Application) async throws {}
            func run(for application: Application, whenReady ready: @escaping @Sendable () -> Void) async throws {
                try? await Task.sleep(for: .milliseconds(20))
                log.append("ready at \(application.state)")
                ready()
                await application.send(.terminate)
            }
        }
        let harness = Harness()
        let log = Recorder<String>()
        await harness.app.run(sources: [SlowSource(log: log), SlowSource(log: log)])
        #expect(log.all == ["ready at notRunning", "ready at notRunning"])
        #expect(harness.delegate.calls.first == "didFinishLaunching")
        #expect(harness.delegate.calls.last == "willTerminate")
    }

    @Test func focusLossAndReturn() {
        let harness = Harness().launched()
        harness.app.send(.focusLost)
        #expect(harness.app.state == .inactive)
        harness.app.send(.focusLost)
        harness.app.send(.focusGained)
        #expect(harness.delegate.calls == ["willResignActive", "didBecomeActive"])
        #expect(harness.app.state == .active)
    }

    @Test func backgroundAndForegroundInApplesOrder() {
        let harness = Harness().launched()
        harness.app.send(.hidden)
        #expect(harness.app.state == .background)
        harness.app.send(.focusGained)  // no focus in the background
        harness.app.send(.visible)
        #expect(
            harness.delegate.calls == [
                "willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive",
            ])
        #expect(harness.app.state == .active)
    }

    @Test func hiddenFromInactiveSkipsResignActive() {
        let harness = Harness().launched()
        harness.app.send(.focusLost)
        harness.app.send(.hidden)
        #expect(harness.delegate.calls == ["willResignActive", "didEnterBackground"])
    }

    @Test func terminateFromActiveGoesThroughBackground() async {
        let harness = Harness().launched()
        harness.app.send(.terminate)
        #expect(harness.delegate.calls == ["willResignActive", "didEnterBackground", "willTerminate"])
        #expect(harness.app.state == .notRunning)
        // Nothing moves a terminated app again.
        harness.app.launch()
        harness.app.send(.visible)
        #expect(harness.delegate.calls.count == 3)
        await harness.app.untilTerminated()
    }

    @Test func terminateFromBackgroundCallsOnlyWillTerminate() {
        let harness = Harness().launched()
        harness.app.send(.hidden)
        harness.delegate.clear()
        harness.app.send(.terminate)
        #expect(harness.delegate.calls == ["willTerminate"])
    }

    @Test func stateSeenByCallbacksIsApples() {
        let seen = Recorder<String>()
        final class Probe: ApplicationDelegate {
            let seen: Recorder<String>
            init(_ seen: Recorder<String>) { self.seen = seen }
            func applicationWillResignActive(_ app: Application) { seen.append("willResignActive:\(app.state)") }
            func applicationDidEnterBackground(_ app: Application) { seen.append("didEnterBackground:\(app.state)") }
            func applicationWillEnterForeground(_ app: Application) { seen.append("willEnterForeground:\(app.state)") }
            func applicationDidBecomeActive(_ app: Application) { seen.append("didBecomeActive:\(app.state)") }
        }
        let app = Application(
            delegate: Probe(seen), scheduler: ManualScheduler(), notificationCenter: NotificationCenter())
        app.launch()
        app.send(.hidden)
        app.send(.visible)
        #expect(
            seen.all == [
                "didBecomeActive:active", "willResignActive:active", "didEnterBackground:background",
                "willEnterForeground:background", "didBecomeActive:active",
            ])
    }

    @Test func notificationsArePostedAfterTheDelegate() {
        let harness = Harness()
        let order = Recorder<String>()
        let names: [Notification.Name] = [
            Application.didFinishLaunchingNotification, Application.didBecomeActiveNotification,
            Application.willResignActiveNotification, Application.didEnterBackgroundNotification,
        ]
        let tokens = names.map { name in
            harness.center.addObserver(forName: name, object: nil, queue: nil) { note in
                // Posted on the main actor, right after the delegate's callback.
                let last = MainActor.assumeIsolated { harness.delegate.calls.last }
                order.append("\(note.name.rawValue) after \(last ?? "-")")
            }
        }
        harness.app.launch()
        harness.app.send(.hidden)
        #expect(
            order.all == [
                "UIApplicationDidFinishLaunchingNotification after didFinishLaunching",
                "UIApplicationDidBecomeActiveNotification after didBecomeActive",
                "UIApplicationWillResignActiveNotification after willResignActive",
                "UIApplicationDidEnterBackgroundNotification after didEnterBackground",
            ])
        tokens.forEach(harness.center.removeObserver)
    }

    @Test func observersFilterAndStopWhenCancelled() {
        let harness = Harness()
        let all = Recorder<LifecycleEvent>()
        let background = Recorder<LifecycleEvent>()
        let everything = harness.app.addObserver { all.append($0) }
        let token = harness.app.addObserver(for: [.didEnterBackground]) { background.append($0) }
        harness.app.launch()
        harness.app.send(.hidden)
        token.cancel()
        harness.app.send(.visible)
        harness.app.send(.hidden)
        #expect(background.all == [.didEnterBackground], "a cancelled observer must not be called")
        #expect(
            all.all == [
                .didFinishLaunching, .didBecomeActive, .willResignActive, .didEnterBackground,
                .willEnterForeground, .didBecomeActive, .willResignActive, .didEnterBackground,
            ])
        withExtendedLifetime(everything) {}
    }

    @Test func releasingTheTokenEndsTheObservation() {
        let harness = Harness()
        let seen = Recorder<LifecycleEvent>()
        do {
            let token = harness.app.addObserver { seen.append($0) }
            _ = token
        }
        harness.app.launch()
        #expect(seen.all.isEmpty)
    }

    @Test func eventStreamDeliversInOrderAndEndsAtTermination() async {
        let harness = Harness()
        let events = harness.app.events
        harness.app.launch()
        harness.app.send(.focusLost)
        harness.app.send(.terminate)
        var received: [LifecycleEvent] = []
        for await event in events { received.append(event) }
        #expect(
            received == [.didFinishLaunching, .didBecomeActive, .willResignActive, .didEnterBackground, .willTerminate])
        // A stream asked for after termination is already finished.
        var late = 0
        for await _ in harness.app.events { late += 1 }
        #expect(late == 0)
    }

    @Test func triggersSentFromACallbackRunAfterIt() {
        let harness = Harness()
        harness.delegate.onEnterBackground = { app in
            app.send(.visible)
            // Still in the background: the nested trigger waits for this callback to end.
            #expect(app.state == .background)
        }
        harness.app.launch()
        harness.app.send(.hidden)
        #expect(harness.delegate.calls.suffix(3) == ["didEnterBackground", "willEnterForeground", "didBecomeActive"])
        #expect(harness.app.state == .active)
    }

    @Test func concurrentTriggersAreProcessedOneAtATime() async {
        let harness = Harness().launched()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { await harness.app.send(index.isMultiple(of: 2) ? .hidden : .visible) }
            }
        }
        // Whatever the interleaving, callbacks alternate as the state machine allows.
        let calls = harness.delegate.calls.filter { $0 == "didEnterBackground" || $0 == "willEnterForeground" }
        for (previous, next) in zip(calls, calls.dropFirst()) { #expect(previous != next) }
    }

    @Test func runReturnsWhenASourceTerminates() async {
        struct TerminatingSource: LifecycleEventSource {
            func run(for application: Application) async throws {
                await application.send(.hidden)
                await application.send(.terminate)
            }
        }
        let harness = Harness()
        await harness.app.run(sources: [TerminatingSource()])
        #expect(harness.app.state == .notRunning)
        #expect(harness.delegate.calls.first == "didFinishLaunching")
        #expect(harness.delegate.calls.last == "willTerminate")
    }
}
