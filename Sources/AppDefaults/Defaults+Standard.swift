import AppSandbox

extension Defaults {
    /// The app's defaults, in its own container (`AppContainer.main`).
    /// Corresponds to `UserDefaults.standard`.
    ///
    /// Changes are saved on their own like those of any ``Defaults``, the last ones
    /// when the process exits normally. A process killed by a signal saves nothing
    /// more: attach the defaults to the `Application` (or call
    /// ``flush()``) to save on entering the background.
    ///
    /// ```swift
    /// try Defaults.standard.register(defaults: ["cardMatrixRows": 4])
    /// Defaults.standard.set(5, forKey: "cardMatrixRows")
    /// ```
    public static let standard = Defaults(container: .main)
}
