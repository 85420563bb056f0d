import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes what saves killed mid-way left in a folder: this layer's own temporary
/// names (`.keepsake-*.tmp`, `.keepsake-*.old`, see `DurableWriter`) last modified
/// more than ``staleAge`` ago, when the folder is next written.
///
/// Only those two patterns are touched, never a link or a folder, and only old ones:
/// a save in progress writes its temporary file within moments, so one untouched for
/// an hour belongs to a process that died. Each folder is swept at most once per
/// ``interval`` per process, so a folder of thousands of files is not listed on every
/// save. Failures are ignored: the sweep is housekeeping, and the save it precedes
/// must not fail because of it. `AppContainer.removeLeftoversOfInterruptedSaves`
/// sweeps a whole container at once.
enum LeftoverSweep {
    /// How old a leftover must be to be removed, in seconds.
    static let staleAge: Double = 60 * 60
    /// The shortest time between two sweeps of one folder by one process.
    static let interval: Duration = .seconds(10 * 60)

    private static let lastSwept = Locked<[String: ContinuousClock.Instant]>([:])

    /// Whether `name` is one this layer leaves behind when killed mid-save.
    static func isLeftover(_ name: String) -> Bool {
        RelativePath.isInternal(name) && (name.hasSuffix(".tmp") || name.hasSuffix(".old"))
    }

    /// Sweeps the folder open as `directory`, holding the item at `itemPath`, unless
    /// this process did within ``interval``.
    static func sweepIfDue(_ system: SystemCalls, directory: Int32, itemPath: String) {
        guard let folder = try? system.fstat(directory) else { return }
        let folderPath = itemPath.lastIndex(of: "/").map { String(itemPath[..<$0]) } ?? itemPath
        let key = "\(folder.device):\(folder.inode):\(folderPath)"
        let now = ContinuousClock.now
        let due = lastSwept.withLock { swept in
            if let last = swept[key], last.duration(to: now) < interval { return false }
            swept[key] = now
            return true
        }
        if due { sweep(system, directory: directory, olderThan: Double(time(nil)) - staleAge) }
    }

    /// Removes the leftovers in `directory` last modified before `cutoff` (seconds since 1970).
    static func sweep(_ system: SystemCalls, directory: Int32, olderThan cutoff: Double) {
        guard let names = try? system.readDirectory(directory) else { return }
        for name in names where isLeftover(name) {
            guard let status = try? system.fstatat(directory, name, false), status.kind == .regular,
                status.modificationTime < cutoff
            else { continue }
            try? system.unlinkat(directory, name, false)
        }
    }
}
