import AppLifecycle
@_spi(Testing) import AppRuntime
import AppSandbox
import Foundation
import Locking

/// Records what it was told, in order, as callback names.
final class RecordingDelegate: ApplicationDelegate {
    private(set) var calls: [String] = []
    /// Runs inside `applicationDidEnterBackground(_:)`, for tests that act there.
    var onEnterBackground: ((Application) -> Void)?

    func clear() { calls.removeAll() }

    private func record(_ name: String) { calls.append(name) }

    func applicationDidFinishLaunching(_ application: Application) { record("didFinishLaunching") }
    func applicationWillResignActive(_ application: Application) { record("willResignActive") }
    func applicationDidBecomeActive(_ application: Application) { record("didBecomeActive") }
    func applicationDidEnterBackground(_ application: Application) {
        record("didEnterBackground")
        onEnterBackground?(application)
    }
    func applicationWillEnterForeground(_ application: Application) { record("willEnterForeground") }
    func applicationWillTerminate(_ application: Application) { record("willTerminate") }
    func applicationDidReceiveMemoryWarning(_ application: Application) { record("didReceiveMemoryWarning") }
}

/// A thread-safe list for closures to append to.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// A launched app with a recording delegate, a manual scheduler and a private notification
/// center, so tests run in parallel without seeing each other.
@MainActor
struct Harness {
    let delegate = RecordingDelegate()
    let scheduler = ManualScheduler()
    let center = NotificationCenter()
    let app: Application

    init(
        grace: Duration = .seconds(5), limit: Duration = .seconds(30),
        expiry: Application.Configuration.ExpiryAction = .suspend
    ) {
        app = Application(
            delegate: delegate,
            configuration: .init(
                backgroundGracePeriod: grace, backgroundTimeLimit: limit, whenBackgroundTimeExpires: expiry),
            scheduler: scheduler, notificationCenter: center)
    }

    /// Launches, then forgets the launch callbacks.
    func launched() -> Harness {
        app.launch()
        delegate.clear()
        return self
    }
}
