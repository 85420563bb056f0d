public import Foundation

/// A low-memory warning: caches should drop what they can rebuild.
///
/// Corresponds to `UIApplication.didReceiveMemoryWarningNotification`. An
/// ``Application`` delivers it to its delegate, posts it on its notification center and
/// hands it to ``Application/addMemoryWarningObserver(_:)`` observers and
/// ``Application/memoryWarnings`` streams. Any object can observe it without a
/// reference to the application:
///
/// ```swift
/// let observer = NotificationCenter.default.addObserver(
///     forName: Application.didReceiveMemoryWarningNotification, object: nil, queue: nil
/// ) { _ in imageCache.removeAllObjects() }
/// ```
public struct MemoryWarning: Sendable, Hashable, CustomStringConvertible {
    /// What raised the warning.
    public enum Origin: String, Sendable, Hashable {
        /// ``Application/simulateMemoryWarning()`` (Simulator's "Simulate Memory Warning").
        case simulated
        /// A Linux pressure-stall (PSI) trigger fired: tasks waited on memory longer
        /// than the threshold within the window.
        case pressureStall
        /// Available memory (`MemAvailable`, or the cgroup v1 limit minus usage) fell
        /// below the threshold.
        case lowAvailableMemory
    }

    public var origin: Origin

    public init(origin: Origin) { self.origin = origin }

    public var description: String { "memory warning (\(origin.rawValue))" }

    /// The `userInfo` key under which the notification carries the warning.
    public static let userInfoKey = "KeepsakeMemoryWarning"

    /// Posts a warning on `center` with no application, for code that has none (a
    /// command-line tool, a test of a cache).
    public static func post(
        _ warning: MemoryWarning = MemoryWarning(origin: .simulated), to center: NotificationCenter = .default
    ) {
        center.post(
            name: Application.didReceiveMemoryWarningNotification, object: nil, userInfo: [userInfoKey: warning])
    }
}
