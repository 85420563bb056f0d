public import AppLifecycle
public import AppRuntime

/// User defaults follow the app's lifecycle, as iOS saves them when an app is suspended.
extension Defaults {
    /// Saves pending changes at once whenever `application` enters the background and
    /// before it terminates, as iOS saves user defaults when an app is suspended. Save
    /// errors are reported through ``Defaults/Configuration/errorHandler``.
    ///
    /// ```swift
    /// let defaultsFollowApp = defaults.attach(to: app)   // keep it as long as the app runs
    /// ```
    /// - Returns: the observation; releasing or cancelling it detaches the defaults.
    public func attach(to application: Application) -> ObservationToken {
        application.addObserver(for: [.didEnterBackground, .willTerminate]) { [weak self] event in
            if event == .willTerminate {
                self?.applicationWillTerminate()
            } else {
                self?.applicationDidEnterBackground()
            }
        }
    }
}
