import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Saves every live ``Defaults`` when the process exits normally (`exit`, returning
/// from `main`), so a change made just before exiting is not lost to the write delay.
/// A process killed by a signal saves nothing here: that is what the bounded write
/// delay and the lifecycle hooks are for.
enum ExitFlush {
    private final class WeakDefaults: @unchecked Sendable {
        // @unchecked: `value` is only touched under `lock`.
        weak var value: Defaults?
        init(_ value: Defaults) { self.value = value }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var live: [ObjectIdentifier: WeakDefaults] = [:]
    nonisolated(unsafe) private static var installed = false

    static func register(_ defaults: Defaults) {
        lock.lock()
        defer { lock.unlock() }
        live[ObjectIdentifier(defaults)] = WeakDefaults(defaults)
        if !installed {
            installed = true
            atexit { ExitFlush.flushAll() }
        }
    }

    static func unregister(_ defaults: Defaults) {
        lock.lock()
        live[ObjectIdentifier(defaults)] = nil
        lock.unlock()
    }

    private static func flushAll() {
        lock.lock()
        let all = live.values.compactMap(\.value)
        lock.unlock()
        for defaults in all { try? defaults.flush() }
    }
}
