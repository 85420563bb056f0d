import AppSandbox
import Foundation
import Locking

/// The lifecycle callbacks the app received, newest last, as the book's
/// `print(#function)` exercise prints them; also printed to standard output.
package final class LifecycleLog: Sendable {
    package struct Entry: Sendable {
        package var date: Date
        package var message: String
    }

    private struct State {
        var entries: [Entry] = []
        var state = "notRunning"
    }

    private let storage = Locked(State())
    /// How many entries are kept.
    package let capacity: Int
    private let echo: Bool

    /// - Parameter echo: whether each entry is also printed to standard output.
    package init(capacity: Int = 500, echo: Bool = true) {
        self.capacity = capacity
        self.echo = echo
    }

    package func record(_ message: String) {
        storage.withLock { state in
            state.entries.append(Entry(date: Date(), message: message))
            if state.entries.count > capacity { state.entries.removeFirst(state.entries.count - capacity) }
        }
        if echo { StandardStream.output.report(message) }
    }

    package var entries: [Entry] { storage.withLock { $0.entries } }

    /// The application state last reported, by name (`active`, `background`…).
    package var state: String {
        get { storage.withLock { $0.state } }
        set { storage.withLock { $0.state = newValue } }
    }
}
