import Foundation

/// The one way the library runs a loop that blocks (polling a descriptor, waiting for
/// a timer): a thread of its own, never a task on Swift's cooperative pool, whose few
/// threads a blocked loop would take from every async caller.
package enum BackgroundThread {
    /// Starts a thread named `name` that runs `body` and ends when it returns.
    /// Linux keeps at most 15 bytes of a thread's name and drops a longer one, so keep
    /// names that short (`keepsake.timer`).
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        // Named from inside: on Linux a name set before `start()` is not applied, and
        // the thread would carry its creator's name.
        let thread = Thread {
            Thread.current.name = name
            body()
        }
        thread.start()
    }
}
