/// The object told about every state change, in the order iOS calls it.
///
/// Corresponds to `UIApplicationDelegate`'s lifecycle methods; every method has an
/// empty default, so implement only what you need. As in UIKit, the delegate lives on
/// the main actor: a class that adopts the protocol is isolated to it, so it may hold
/// the books' plain classes (an `ItemStore` with `var allItems`, a `class Item`)
/// without any `Sendable` annotation. Methods are called one at a time;
/// ``Application/state`` already reflects the state iOS reports at that point (still
/// `.active` in ``applicationWillResignActive(_:)``, `.background` in
/// ``applicationDidEnterBackground(_:)``).
///
/// ```swift
/// class AppDelegate: ApplicationDelegate {
///     let itemStore = ItemStore()   // the book's own store class, with `var allItems = [Item]()`
///
///     func applicationDidEnterBackground(_ application: Application) {
///         let success = itemStore.saveChanges()
///         print(success ? "Saved all of the Items" : "Could not save any of the Items")
///     }
/// }
/// ```
@MainActor
public protocol ApplicationDelegate: AnyObject, Sendable {
    /// Corresponds to `application(_:willFinishLaunchingWithOptions:)`: called first at
    /// launch. `launchOptions` is `nil`, as for an app the user started. The result
    /// is ignored.
    func application(
        _ application: Application, willFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?
    ) -> Bool
    /// Corresponds to `application(_:didFinishLaunchingWithOptions:)`, with the
    /// books' spelling: called at launch after the will-finish callback; the default
    /// calls ``applicationDidFinishLaunching(_:)``. `launchOptions` is `nil`; the
    /// result is ignored.
    func application(
        _ application: Application, didFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?
    ) -> Bool
    /// Corresponds to `applicationDidFinishLaunching(_:)`, which Apple calls only when
    /// the delegate has no `application(_:didFinishLaunchingWithOptions:)`: likewise
    /// here, through that method's default.
    func applicationDidFinishLaunching(_ application: Application)
    /// Corresponds to `applicationWillResignActive(_:)`.
    func applicationWillResignActive(_ application: Application)
    /// Corresponds to `applicationDidBecomeActive(_:)`.
    func applicationDidBecomeActive(_ application: Application)
    /// Corresponds to `applicationDidEnterBackground(_:)`: save user data here.
    func applicationDidEnterBackground(_ application: Application)
    /// Corresponds to `applicationWillEnterForeground(_:)`.
    func applicationWillEnterForeground(_ application: Application)
    /// Corresponds to `applicationWillTerminate(_:)`. Not called for `SIGKILL`, nor on
    /// iOS for an app killed while suspended.
    func applicationWillTerminate(_ application: Application)
    /// Corresponds to `applicationDidReceiveMemoryWarning(_:)`.
    func applicationDidReceiveMemoryWarning(_ application: Application)
}

extension ApplicationDelegate {
    public func application(
        _ application: Application, willFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?
    ) -> Bool { true }
    public func application(
        _ application: Application, didFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?
    ) -> Bool {
        applicationDidFinishLaunching(application)
        return true
    }
    public func applicationDidFinishLaunching(_ application: Application) {}
    public func applicationWillResignActive(_ application: Application) {}
    public func applicationDidBecomeActive(_ application: Application) {}
    public func applicationDidEnterBackground(_ application: Application) {}
    public func applicationWillEnterForeground(_ application: Application) {}
    public func applicationWillTerminate(_ application: Application) {}
    public func applicationDidReceiveMemoryWarning(_ application: Application) {}
}

extension ApplicationDelegate {
    /// Calls the method for `event`.
    func deliver(_ event: LifecycleEvent, from application: Application) {
        switch event {
        case .didFinishLaunching:
            _ = self.application(application, willFinishLaunchingWithOptions: nil)
            _ = self.application(application, didFinishLaunchingWithOptions: nil)
        case .willResignActive: applicationWillResignActive(application)
        case .didBecomeActive: applicationDidBecomeActive(application)
        case .didEnterBackground: applicationDidEnterBackground(application)
        case .willEnterForeground: applicationWillEnterForeground(application)
        case .willTerminate: applicationWillTerminate(application)
        case .didReceiveMemoryWarning: applicationDidReceiveMemoryWarning(application)
        case .didSuspend: break
        }
    }
}

extension Application {
    /// A key of the launch options dictionary. Corresponds to
    /// `UIApplication.LaunchOptionsKey`; a process started on Linux has no launch
    /// options, so the dictionary the delegate receives is `nil`.
    public struct LaunchOptionsKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

/// The older spelling of ``Application/LaunchOptionsKey``, as in the books'
/// `[UIApplicationLaunchOptionsKey: Any]?`.
public typealias ApplicationLaunchOptionsKey = Application.LaunchOptionsKey
