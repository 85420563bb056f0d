import AppLifecycle
import Foundation

/// Homepwner's application delegate: logs every callback by name, as the book's
/// `print(#function)` exercise does, and saves when the app enters the background
/// and before it terminates.
///
/// Corresponds to the book's `AppDelegate`, whose `applicationDidEnterBackground(_:)`
/// calls `itemStore.saveChanges()`.
public final class AppDelegate: ApplicationDelegate {
    public let inventory: Inventory
    public let log: LifecycleLog

    public init(inventory: Inventory, log: LifecycleLog) {
        self.inventory = inventory
        self.log = log
    }

    private func report(_ function: String, _ application: Application) {
        log.state = application.state.rawValue
        log.record(function)
    }

    public func applicationDidFinishLaunching(_ application: Application) {
        report(#function, application)
    }

    public func applicationWillResignActive(_ application: Application) {
        report(#function, application)
    }

    public func applicationDidBecomeActive(_ application: Application) {
        report(#function, application)
    }

    public func applicationDidEnterBackground(_ application: Application) {
        report(#function, application)
        save()
    }

    public func applicationWillEnterForeground(_ application: Application) {
        report(#function, application)
    }

    public func applicationWillTerminate(_ application: Application) {
        report(#function, application)
        save()
    }

    public func applicationDidReceiveMemoryWarning(_ application: Application) {
        report(#function, application)
        inventory.imageStore.cache.removeAllObjects()
    }

    private func save() {
        do {
            try inventory.save()
            log.record("Saved all of the Items")
        } catch {
            log.record("Could not save any of the Items: \(error)")
        }
    }
}
