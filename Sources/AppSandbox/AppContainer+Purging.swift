public import Foundation

/// What a purge removed and what it left.
public struct PurgeReport: Sendable, Hashable {
    /// Files (and links) removed.
    public var removedFiles: Int
    public var removedBytes: Int64
    /// Size of the files left in the directory.
    public var remainingBytes: Int64
}

extension AppContainer {
    /// Removes files in `tmp/` last modified more than `age` seconds before `now`,
    /// then the folders left empty that are that old too. Call it at launch: iOS
    /// clears `tmp/` while the app is not running, and a process here has no such
    /// moment of its own.
    ///
    /// - Parameters:
    ///   - age: how many seconds old a file must be to go; a day by default.
    ///   - now: the current time; tests pass their own instead of waiting.
    @discardableResult
    public func purgeTemporaryFiles(olderThan age: TimeInterval = 24 * 60 * 60, now: Date = Date()) throws(SandboxError)
        -> PurgeReport
    {
        try purge(.temporary, removingEmptyFoldersOlderThan: now.addingTimeInterval(-age)) { files in
            files.filter { $0.modificationDate < now.addingTimeInterval(-age) }
        }
    }

    /// Removes files in `Library/Caches/` last modified more than `age` seconds
    /// before `now`. Corresponds to the system purging an app's caches.
    @discardableResult
    public func purgeCaches(olderThan age: TimeInterval, now: Date = Date()) throws(SandboxError) -> PurgeReport {
        try purge(.caches, removingEmptyFoldersOlderThan: nil) { files in
            files.filter { $0.modificationDate < now.addingTimeInterval(-age) }
        }
    }

    /// Removes the least recently modified files in `Library/Caches/` until the
    /// files left there take at most `maxBytes`.
    @discardableResult
    public func purgeCaches(toFitIn maxBytes: Int64) throws(SandboxError) -> PurgeReport {
        try purge(.caches, removingEmptyFoldersOlderThan: nil) { files in
            var total = files.reduce(Int64(0)) { $0 &+ $1.size }
            var victims: [DirectoryEntry] = []
            // Oldest first; the path breaks ties so the order does not depend on listing order.
            for file in files.sorted(by: {
                ($0.modificationDate, $0.relativePath) < ($1.modificationDate, $1.relativePath)
            }) {
                if total <= maxBytes { break }
                victims.append(file)
                total &-= file.size
            }
            return victims
        }
    }

    /// Removes the temporary files a save interrupted by a crash leaves beside its
    /// target (`.keepsake-*.tmp`, `.keepsake-*.old`, see `DurableWriter`) anywhere in
    /// the container, when older than `age`: younger ones may belong to a save in
    /// progress in another process. Walks the whole container; call it at launch
    /// or from maintenance, not before every save.
    @discardableResult
    public func removeLeftoversOfInterruptedSaves(olderThan age: TimeInterval = 24 * 60 * 60, now: Date = Date())
        throws(SandboxError) -> PurgeReport
    {
        var total = PurgeReport(removedFiles: 0, removedBytes: 0, remainingBytes: 0)
        for kind in [Directory.documents, .library, .temporary] {
            let report = try purge(kind, removingEmptyFoldersOlderThan: nil) { files in
                files.filter { file in
                    RelativePath.isInternal(file.name) && (file.name.hasSuffix(".tmp") || file.name.hasSuffix(".old"))
                        && file.modificationDate < now.addingTimeInterval(-age)
                }
            }
            total.removedFiles += report.removedFiles
            total.removedBytes &+= report.removedBytes
            total.remainingBytes &+= report.remainingBytes
        }
        return total
    }

    /// Lists `kind` (this layer's stray temporary files included), removes the files
    /// `choose` picks, then optionally folders left empty that are older than a date.
    private func purge(
        _ kind: Directory, removingEmptyFoldersOlderThan cutoff: Date?, choose: ([DirectoryEntry]) -> [DirectoryEntry]
    ) throws(SandboxError) -> PurgeReport {
        try directory(kind).withResolver { resolver throws(SandboxError) -> PurgeReport in
            let engine = FileEngine(system: system)
            let root = DirectoryHandle(fd: resolver.root, path: resolver.rootPath, components: [])
            var entries: [DirectoryEntry] = []
            try engine.enumerate(root, includingInternal: true, skipDescendants: { _ in false }, into: &entries)
            let locks = Set(entries.filter(Self.isLockFile).map(\.relativePath))
            let files = entries.filter { $0.kind != .directory && !isGuarded($0, locks: locks, resolver) }
            let victims = choose(files)
            var report = PurgeReport(
                removedFiles: 0, removedBytes: 0, remainingBytes: files.reduce(0) { $0 &+ $1.size })
            for victim in victims {
                try remove(victim.relativePath, resolver, engine)
                report.removedFiles += 1
                report.removedBytes &+= victim.size
                report.remainingBytes &-= victim.size
            }
            guard let cutoff else { return report }
            // Deepest first, so a folder emptied by removing its subfolders goes too.
            for folder in entries.reversed() where folder.kind == .directory && folder.modificationDate < cutoff {
                let location = try resolver.item(
                    folder.relativePath.split(separator: "/").map(String.init), followFinalLink: false)
                defer { location.release(system) }
                try? system.unlinkat(location.parent, location.name, true)
            }
            return report
        }
    }

    /// Lock files, and what a held lock guards (an open journal), are never purged:
    /// removing a lock lets a second owner in beside the first, and a journal removed
    /// while open would take every change written to it afterwards with it. Only an
    /// item whose lock file is among `locks` is probed.
    private func isGuarded(_ file: DirectoryEntry, locks: Set<String>, _ resolver: ContainedResolver) -> Bool {
        if Self.isLockFile(file) { return true }
        let folder = file.relativePath.dropLast(file.name.count)
        guard locks.contains(folder + LockFile.name(for: file.name)),
            let location = try? resolver.item(
                file.relativePath.split(separator: "/").map(String.init), followFinalLink: false)
        else { return false }
        defer { location.release(system) }
        return LockFile.isHeld(system, parent: location.parent, name: LockFile.name(for: location.name))
    }

    private static func isLockFile(_ entry: DirectoryEntry) -> Bool {
        RelativePath.isInternal(entry.name) && entry.name.hasSuffix(".lock")
    }

    private func remove(_ relativePath: String, _ resolver: ContainedResolver, _ engine: FileEngine)
        throws(SandboxError)
    {
        let location = try resolver.item(relativePath.split(separator: "/").map(String.init), followFinalLink: false)
        defer { location.release(system) }
        do {
            try engine.remove(location)
        } catch .noSuchFile {
            // Removed by someone else meanwhile.
        }
    }
}
