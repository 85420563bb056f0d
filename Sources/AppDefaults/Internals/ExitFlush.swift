import Foundation
import Locking

/// Saves every live ``Defaults`` when the process exits normally (`exit`, returning
/// from `main`), so a change made just before exiting is not lost to the write delay,
/// and folds their journals into the plists.
/// A process killed by a signal saves nothing here: that is what the bounded write
/// delay and the lifecycle hooks are for.
enum ExitFlush {
    private struct WeakDefaults {
        weak var value: Defaults?
    }

    private struct State {
        var live: [ObjectIdentifier: WeakDefaults] = [:]
        var installed = false
    }

    private static let state = Locked(State())

    static func register(_ defaults: Defaults) {
        let install = state.withLock { state in
            state.live[ObjectIdentifier(defaults)] = WeakDefaults(value: defaults)
            defer { state.installed = true }
            return !state.installed
        }
        if install { atexit { ExitFlush.flushAll() } }
    }

    static func unregister(_ defaults: Defaults) {
        _ = state.withLock { $0.live.removeValue(forKey: ObjectIdentifier(defaults)) }
    }

    private static func flushAll() {
        let all = state.withLock { $0.live.values.compactMap(\.value) }
        for defaults in all {
            try? defaults.flush()
            // Folded, so that no journal is left for the next process to replay.
            defaults.closeJournals()
        }
    }
}
