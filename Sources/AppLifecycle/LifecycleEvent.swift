public import Foundation

/// One thing that happened to the application, in the order iOS reports it.
///
/// Every case but ``didSuspend`` is an `UIApplicationDelegate` callback and a
/// `UIApplication` notification; ``Application`` delivers each to its delegate, then
/// posts it on its notification center, then hands it to observers and event streams.
public enum LifecycleEvent: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Launch finished; the app is inactive. Corresponds to
    /// `application(_:didFinishLaunchingWithOptions:)`.
    case didFinishLaunching
    /// The app is about to leave the active state (focus lost, going to background,
    /// terminating). Corresponds to `applicationWillResignActive(_:)`.
    case willResignActive
    /// The app became active. Corresponds to `applicationDidBecomeActive(_:)`.
    case didBecomeActive
    /// The app is in the background: save now. Corresponds to
    /// `applicationDidEnterBackground(_:)`.
    case didEnterBackground
    /// The app is about to come back to the foreground. Corresponds to
    /// `applicationWillEnterForeground(_:)`.
    case willEnterForeground
    /// The app is about to end. Corresponds to `applicationWillTerminate(_:)`.
    case willTerminate
    /// Memory is short: drop what can be rebuilt. Corresponds to
    /// `applicationDidReceiveMemoryWarning(_:)`.
    case didReceiveMemoryWarning
    /// The background time is over and the app no longer runs code. iOS gives no
    /// callback for this (neither does this package's delegate); the event is reported
    /// to observers and streams only, so a process can be told it was stopped.
    case didSuspend

    public var description: String { rawValue }

    /// The notification posted for this event: `UIApplication`'s name for it.
    public var notificationName: Notification.Name {
        switch self {
        case .didFinishLaunching: Application.didFinishLaunchingNotification
        case .willResignActive: Application.willResignActiveNotification
        case .didBecomeActive: Application.didBecomeActiveNotification
        case .didEnterBackground: Application.didEnterBackgroundNotification
        case .willEnterForeground: Application.willEnterForegroundNotification
        case .willTerminate: Application.willTerminateNotification
        case .didReceiveMemoryWarning: Application.didReceiveMemoryWarningNotification
        case .didSuspend: Application.didSuspendNotification
        }
    }
}

/// Something an event source saw, for ``Application/send(_:)`` to turn into state
/// changes and callbacks.
///
/// The programmatic event source: a web page forwards `blur`/`focus` as
/// ``focusLost``/``focusGained``, `visibilitychange` as ``hidden``/``visible`` and
/// `pagehide` as ``terminate``; signals and terminal focus reports arrive the same way.
/// A trigger that does not apply to the current state (``focusGained`` in the
/// background, anything after termination) is ignored.
public enum LifecycleTrigger: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The window, terminal or page lost focus: active → inactive.
    case focusLost
    /// Focus came back: inactive → active.
    case focusGained
    /// No longer visible: → background (resigning active first).
    case hidden
    /// Visible again: background or suspended → foreground → active.
    case visible
    /// The app is ending: → background (if in the foreground) → will terminate → not running.
    case terminate

    public var description: String { rawValue }
}

extension Application {
    /// Corresponds to `UIApplication.didFinishLaunchingNotification`.
    public static let didFinishLaunchingNotification = Notification.Name("UIApplicationDidFinishLaunchingNotification")
    /// Corresponds to `UIApplication.willResignActiveNotification`.
    public static let willResignActiveNotification = Notification.Name("UIApplicationWillResignActiveNotification")
    /// Corresponds to `UIApplication.didBecomeActiveNotification`.
    public static let didBecomeActiveNotification = Notification.Name("UIApplicationDidBecomeActiveNotification")
    /// Corresponds to `UIApplication.didEnterBackgroundNotification`.
    public static let didEnterBackgroundNotification = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    /// Corresponds to `UIApplication.willEnterForegroundNotification`.
    public static let willEnterForegroundNotification = Notification.Name(
        "UIApplicationWillEnterForegroundNotification")
    /// Corresponds to `UIApplication.willTerminateNotification`.
    public static let willTerminateNotification = Notification.Name("UIApplicationWillTerminateNotification")
    /// Corresponds to `UIApplication.didReceiveMemoryWarningNotification`. The
    /// notification's object is the ``Application`` (or `nil` for a warning posted by
    /// ``MemoryWarning/post(_:to:)``), its `userInfo` holds the ``MemoryWarning`` under
    /// ``MemoryWarning/userInfoKey``.
    public static let didReceiveMemoryWarningNotification = Notification.Name(
        "UIApplicationDidReceiveMemoryWarningNotification")
    /// Posted after ``LifecycleEvent/didSuspend``; no UIKit counterpart.
    public static let didSuspendNotification = Notification.Name("KeepsakeApplicationDidSuspendNotification")
}
