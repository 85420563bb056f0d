@_spi(Testing) import AppRuntime
import AppSandbox
import Foundation
import Testing

@testable import AppLifecycle

@Suite @MainActor struct BackgroundTimeTests {
    @Test func suspendedAfterTheGracePeriod() {
        let harness = Harness(grace: .seconds(5)).launched()
        let events = Recorder<LifecycleEvent>()
        let token = harness.app.addObserver(for: [.didSuspend]) { events.append($0) }
        harness.app.send(.hidden)
        harness.scheduler.advance(by: .milliseconds(4999))
        #expect(harness.app.state == .background)
        harness.scheduler.advance(by: .milliseconds(1))
        #expect(harness.app.state == .suspended)
        #expect(events.all == [.didSuspend])
        withExtendedLifetime(token) {}
    }

    @Test func comingBackBeforeTheGracePeriodCancelsSuspension() {
        let harness = Harness(grace: .seconds(5)).launched()
        harness.app.send(.hidden)
        harness.scheduler.advance(by: .seconds(2))
        harness.app.send(.visible)
        harness.scheduler.advance(by: .seconds(60))
        #expect(harness.app.state == .active, "a timer from the earlier background stay must not suspend the app")
    }

    @Test func openTaskKeepsTheAppRunningUntilItEnds() {
        let harness = Harness(grace: .seconds(5), limit: .seconds(30)).launched()
        harness.app.send(.hidden)
        let task = harness.app.beginBackgroundTask(withName: "upload")
        #expect(task != .invalid)
        harness.scheduler.advance(by: .seconds(10))
        #expect(harness.app.state == .background)
        harness.app.endBackgroundTask(task)
        #expect(harness.app.state == .suspended)
    }

    @Test func endingTheTaskBeforeTheGracePeriodWaitsForIt() {
        let harness = Harness(grace: .seconds(5)).launched()
        harness.app.send(.hidden)
        let task = harness.app.beginBackgroundTask()
        harness.app.endBackgroundTask(task)
        #expect(harness.app.state == .background)
        harness.scheduler.advance(by: .seconds(5))
        #expect(harness.app.state == .suspended)
    }

    @Test func expirationHandlerRunsWhenTimeRunsOutThenTheAppIsSuspended() {
        let harness = Harness(grace: .seconds(5), limit: .seconds(30)).launched()
        let log = Recorder<String>()
        let token = harness.app.addObserver(for: [.didSuspend]) { _ in log.append("suspended") }
        harness.app.send(.hidden)
        _ = harness.app.beginBackgroundTask { log.append("expired") }
        harness.scheduler.advance(by: .milliseconds(29_999))
        #expect(log.all.isEmpty)
        harness.scheduler.advance(by: .milliseconds(1))
        #expect(log.all == ["expired", "suspended"])
        #expect(harness.app.openBackgroundTaskCount == 0)
        withExtendedLifetime(token) {}
    }

    @Test func expiryCanTerminateInstead() async {
        let harness = Harness(grace: .seconds(1), limit: .seconds(2), expiry: .terminate).launched()
        harness.app.send(.hidden)
        _ = harness.app.beginBackgroundTask {}
        harness.scheduler.advance(by: .seconds(2))
        #expect(harness.delegate.calls.last == "willTerminate")
        #expect(harness.app.state == .notRunning)
    }

    @Test func noBackgroundTimeForASuspendedApp() {
        let harness = Harness(grace: .seconds(1)).launched()
        harness.app.send(.hidden)
        harness.scheduler.advance(by: .seconds(1))
        #expect(harness.app.beginBackgroundTask() == .invalid)
    }

    @Test func foregroundFromSuspendedCallsWillEnterForeground() {
        let harness = Harness(grace: .seconds(1)).launched()
        harness.app.send(.hidden)
        harness.scheduler.advance(by: .seconds(1))
        harness.delegate.clear()
        harness.app.send(.visible)
        #expect(harness.delegate.calls == ["willEnterForeground", "didBecomeActive"])
        #expect(harness.app.state == .active)
    }

    @Test func stopRequestSuspendsWithoutGraceAndStopsOnce() {
        let harness = Harness(grace: .seconds(60)).launched()
        let stops = Recorder<ApplicationState>()
        harness.app.sendHidden(thenStop: { [app = harness.app] in stops.append(app.state) })
        #expect(harness.app.state == .suspended)
        #expect(stops.all == [.suspended], "the process is stopped only after the app is suspended")
        harness.app.send(.visible)
        harness.scheduler.advance(by: .seconds(120))
        #expect(stops.all.count == 1)
        #expect(harness.app.state == .active)
    }

    @Test func stopRequestWaitsForOpenTasks() {
        let harness = Harness(grace: .seconds(5), limit: .seconds(10)).launched()
        let stops = Recorder<String>()
        harness.delegate.onEnterBackground = { app in
            _ = app.beginBackgroundTask { stops.append("expired") }
        }
        harness.app.sendHidden(thenStop: { stops.append("stopped") })
        #expect(harness.app.state == .background)
        harness.scheduler.advance(by: .seconds(10))
        #expect(stops.all == ["expired", "stopped"])
    }
}
