import Foundation
import Locking

extension Application {
    /// Names an open background task. Corresponds to `UIBackgroundTaskIdentifier`.
    public struct BackgroundTaskIdentifier: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Returned when no background time can be had (the app is suspended or not
        /// running). Corresponds to `UIBackgroundTaskIdentifier.invalid`.
        public static let invalid = BackgroundTaskIdentifier(rawValue: 0)

        public var description: String { "BackgroundTask(\(rawValue))" }
    }

    struct BackgroundTask {
        var id: Int
        var name: String?
        var expirationHandler: (@MainActor @Sendable () -> Void)?
    }

    /// Asks for time to finish work in the background. While a task is open the app is
    /// not suspended after the grace period; when ``Configuration/backgroundTimeLimit``
    /// (counted from entering the background) runs out first, `expirationHandler` runs
    /// (on the main actor) and the app is then suspended or terminated
    /// (``Configuration/whenBackgroundTimeExpires``). End every task with
    /// ``endBackgroundTask(_:)``, in the handler too.
    ///
    /// Corresponds to `UIApplication.beginBackgroundTask(withName:expirationHandler:)`.
    ///
    /// ```swift
    /// func applicationDidEnterBackground(_ application: Application) {
    ///     let task = application.beginBackgroundTask { uploader.cancel() }
    ///     uploader.finish { application.endBackgroundTask(task) }
    /// }
    /// ```
    /// - Returns: the task, or ``BackgroundTaskIdentifier/invalid`` when the app is
    ///   suspended or not running.
    public func beginBackgroundTask(
        withName name: String? = nil, expirationHandler: (@MainActor @Sendable () -> Void)? = nil
    ) -> BackgroundTaskIdentifier {
        machine.withLock { machine in
            guard machine.state != .suspended, machine.state != .notRunning else { return .invalid }
            let id = machine.makeID()
            machine.tasks[id] = BackgroundTask(id: id, name: name, expirationHandler: expirationHandler)
            return BackgroundTaskIdentifier(rawValue: id)
        }
    }

    /// Ends a task begun with ``beginBackgroundTask(withName:expirationHandler:)``; the
    /// app may then be suspended. Ending an unknown or already ended task does nothing.
    /// Corresponds to `UIApplication.endBackgroundTask(_:)`, which is also called on the
    /// main actor; work finishing elsewhere hops there
    /// (`Task { @MainActor in application.endBackgroundTask(task) }`).
    @MainActor
    public func endBackgroundTask(_ identifier: BackgroundTaskIdentifier) {
        let removed = machine.withLock { $0.tasks.removeValue(forKey: identifier.rawValue) != nil }
        if removed { enqueue(.taskEnded) }
    }

    /// How many background tasks are open.
    public var openBackgroundTaskCount: Int { machine.withLock { $0.tasks.count } }
}
