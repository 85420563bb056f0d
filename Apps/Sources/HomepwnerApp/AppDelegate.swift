import AppLifecycle
import Foundation

/// Homepwner's application delegate: logs every callback by name, as the book's
/// `print(#function)` exercise does, and saves when the app enters the background
/// and before it terminates.
///
/// Corresponds to the book's `AppDelegate`, whose `applicationDidEnterBackground(_:)`
/// calls `itemStore.saveChanges()`.
package final class AppDelegate: ApplicationDelegate {
    package let inventory: Inventory
    package let log: LifecycleLog

    package init(inventory: Inventory, log: LifecycleLog) {
        self.inventory = inventory
        self.log = log
    }

    private func report(_ function: String, _ application: Application) {
        log.state = application.state.rawValue
        log.record(function)
    }

    package func applicationDidFinishLaunching(_ application: Application) {
        report(#function, application)
    }

    package func applicationWillResignActive(_ application: Application) {
        report(#function, application)
    }

    package func applicationDidBecomeActive(_ application: Application) {
        report(#function, application)
    }

    package func applicationDidEnterBackground(_ application: Application) {
        report(#function, application)
        save()
    }

    package func applicationWillEnterForeground(_ application: Application) {
        report(#function, application)
    }

    package func applicationWillTerminate(_ application: Application) {
        report(#function, application)
        save()
    }

    package func applicationDidReceiveMemoryWarning(_ application: Application) {
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
