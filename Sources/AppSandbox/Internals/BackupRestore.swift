import Foundation
import ZIPFoundation

/// One all-or-nothing restore of a backup ZIP into a container.
///
/// The steps:
/// 1. *Check* every entry's name, kind and declared size against the rules and the
///    ``SandboxBackup/Limits`` before anything on disk is touched.
/// 2. *Stage*: make `.keepsake-restore-<random>/` in the container root; for each
///    top-level directory the backup touches (`Documents`, `Library`) mirror the live
///    one into it with hard links (``FileEngine/mirror(_:into:)``), then write every
///    entry over the mirror through the contained resolver, streaming it from the ZIP
///    in constant memory (``ZipEntryData``, which never reads past an entry's data)
///    and holding it to its CRC-32, its declared size and the limits.
///    Each file is written with the durable writer (fsync file, rename, fsync folder).
/// 3. *Swap* each staged directory with the live one in one `renameat2(RENAME_EXCHANGE)`
///    (two renames where that is missing), then fsync the container root. The old
///    trees now sit in the staging folder until the last swap is durable.
/// 4. Remove the staging folder, old trees included.
///
/// Any failure before step 3 ends removes the staging folder and leaves the live
/// directories untouched; a failure during step 3 swaps back what was swapped. A crash
/// leaves each top-level directory either old or new, never a mix, plus a
/// `.keepsake-restore-*` folder that holds nothing the container needs.
struct BackupRestore {
    let container: AppContainer
    let zipURL: URL
    let limits: SandboxBackup.Limits

    var system: SystemCalls { container.system }
    var engine: FileEngine { FileEngine(system: system) }

    static let stagingPrefix = RelativePath.internalPrefix + "restore-"

    /// One checked entry.
    struct Item {
        var entry: Entry
        var top: String
        /// Components below `top`; empty for the top-level folder itself.
        var components: [String]
        /// The entry's name without a trailing `/`, for results and errors.
        var path: String
        var isDirectory: Bool
        /// Where its data lies in the file.
        var location: ZipEntryData.Location
    }

    func run() throws(SandboxError) -> [String] {
        let archive: Archive
        do {
            archive = try Archive(url: zipURL, accessMode: .read)
        } catch {
            throw SandboxError(.invalidBackup, "not a readable ZIP archive: \(error)", path: zipURL.path)
        }
        var data = try ZipEntryData(url: zipURL)
        defer { data.close() }
        let items = try check(archive, &data)
        var tops: [String] = []
        for item in items where !tops.contains(item.top) { tops.append(item.top) }
        if tops.isEmpty { return [] }

        let root = try openRoot()
        defer { try? system.close(root) }
        let (staging, stagingName) = try makeStaging(in: root)
        defer { staging.close(system) }
        var keepStaging = false
        defer {
            if !keepStaging {
                try? engine.remove(Location(parent: root, name: stagingName, path: staging.path))
                try? engine.sync(root, path: container.url.path)
            }
        }
        for top in tops { try stage(top, root: root, staging: staging) }
        var total: UInt64 = 0
        for item in items { try write(item, from: data, staging: staging, total: &total) }
        try engine.sync(staging.fd, path: staging.path)
        try swap(tops, root: root, staging: staging, keepStaging: &keepStaging)
        return items.filter { !$0.components.isEmpty }.map(\.path)
    }

    // MARK: 1. Check

    private func check(_ archive: Archive, _ data: inout ZipEntryData) throws(SandboxError) -> [Item] {
        var items: [Item] = []
        var seen: Set<String> = []
        var declared: UInt64 = 0
        for entry in archive {
            if items.count >= limits.maxEntries {
                throw SandboxError(
                    .invalidBackup, "the archive holds more than \(limits.maxEntries) entries", path: zipURL.path)
            }
            if entry.type == .symlink {
                throw SandboxError(.invalidBackup, "symbolic links are not restored", path: entry.path)
            }
            var path = entry.path
            let isDirectory = entry.type == .directory
            if path.hasSuffix("/") { path.removeLast() }
            let (top, rest) = try Self.split(path)
            if top == "Library", let first = rest.split(separator: "/").first, first == "Caches" {
                throw SandboxError(.invalidBackup, "Caches are never part of a backup", path: entry.path)
            }
            let components = rest.isEmpty ? [] : try RelativePath.components(of: rest)
            let key = ([top] + components).joined(separator: "/")
            if !seen.insert(key).inserted {
                throw SandboxError(.invalidBackup, "the archive names this entry twice", path: path)
            }
            let (sum, overflow) = declared.addingReportingOverflow(entry.uncompressedSize)
            if overflow || sum > limits.maxTotalBytes {
                throw SandboxError(
                    .invalidBackup, "the archive declares more than \(limits.maxTotalBytes) bytes", path: path)
            }
            declared = sum
            if exceedsRatio(entry.uncompressedSize, compressed: entry.compressedSize) {
                throw SandboxError(
                    .invalidBackup,
                    "declares \(entry.uncompressedSize) bytes from \(entry.compressedSize): "
                        + "compressed more than \(limits.maxCompressionRatio):1 (a ZIP bomb?)",
                    path: path)
            }
            let location = try data.next(for: entry)
            items.append(
                Item(
                    entry: entry, top: top, components: components, path: path, isDirectory: isDirectory,
                    location: location))
        }
        return items
    }

    /// Whether `size` bytes out of `compressed` passes the ratio limit; sizes up to
    /// the allowance always pass.
    private func exceedsRatio(_ size: UInt64, compressed: UInt64) -> Bool {
        guard size > limits.ratioAllowance else { return false }
        let (bound, overflow) = max(compressed, 1).multipliedReportingOverflow(by: limits.maxCompressionRatio)
        return !overflow && size > bound
    }

    /// Splits a container-relative path into its top-level directory and the rest.
    static func split(_ path: String) throws(SandboxError) -> (String, String) {
        let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let rest = parts.count > 1 ? String(parts[1]) : ""
        switch parts.first.map(String.init) {
        case "Documents": return ("Documents", rest)
        case "Library": return ("Library", rest)
        default:
            if path.hasPrefix("/") { throw SandboxError(.outsideContainer, "absolute path in a backup", path: path) }
            throw SandboxError(.invalidBackup, "only Documents/ and Library/ are restored", path: path)
        }
    }

    // MARK: 2. Stage

    private func openRoot() throws(SandboxError) -> Int32 {
        let path = container.url.path
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
        do {
            return try system.open(AT_FDCWD, path, flags: flags, path: path)
        } catch .noSuchFile {
            try FileSystem(system: system).createDirectory(at: container.url, withIntermediateDirectories: true)
            return try system.open(AT_FDCWD, path, flags: flags, path: path)
        }
    }

    private func makeStaging(in root: Int32) throws(SandboxError) -> (DirectoryHandle, String) {
        var attempts = 0
        while true {
            let name = Self.stagingPrefix + String(UInt64.random(in: .min ... .max), radix: 16)
            let path = container.url.path + "/" + name
            do {
                try system.mkdirat(root, name, 0o700)
            } catch  where error.rawValue == EEXIST && attempts < 8 {
                attempts += 1
                continue
            } catch {
                throw SandboxError(errno: error.rawValue, path: path, operation: "create staging folder")
            }
            let fd = try system.open(root, name, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, path: path)
            return (DirectoryHandle(fd: fd, path: path, components: [name]), name)
        }
    }

    /// `staging/<top>`: a hard-linked mirror of the live directory, or a new empty one.
    private func stage(_ top: String, root: Int32, staging: DirectoryHandle) throws(SandboxError) {
        let resolver = ContainedResolver(system: system, root: root, rootPath: container.url.path)
        let live: DirectoryHandle?
        do {
            live = try resolver.directory([top])
        } catch .noSuchFile {
            live = nil
        }
        defer { live?.close(system) }
        let permissions = try live.map { (handle: DirectoryHandle) throws(SandboxError) in
            try system.checked("stat", handle.path) { () throws(Errno) in try system.fstat(handle.fd) }.permissions
        }
        let path = staging.path + "/" + top
        try system.checked("create directory", path) { () throws(Errno) in try system.mkdirat(staging.fd, top, 0o700) }
        let copy = try engine.openDirectory(Location(parent: staging.fd, name: top, path: path))
        defer { copy.close(system) }
        try system.checked("chmod", path) { () throws(Errno) in try system.fchmod(copy.fd, permissions ?? 0o755) }
        if let live {
            try engine.copyExclusionMark(from: live, to: copy)
            try engine.mirror(live, into: copy)
        } else {
            try engine.sync(copy.fd, path: path)
        }
    }

    /// Writes one entry over the staged mirror; a failure names the entry.
    private func write(_ item: Item, from data: ZipEntryData, staging: DirectoryHandle, total: inout UInt64)
        throws(SandboxError)
    {
        guard !item.components.isEmpty else { return }
        do throws(SandboxError) {
            let resolver = try ContainedResolver(system: system, root: staging.fd, rootPath: staging.path)
                .directory([item.top])
            defer { resolver.close(system) }
            let contained = ContainedResolver(system: system, root: resolver.fd, rootPath: resolver.path)
            let location = try contained.item(
                item.components, followFinalLink: item.isDirectory, createIntermediates: true)
            defer { location.release(system) }
            if item.isDirectory {
                try engine.createDirectory(location, intermediates: true)
            } else {
                try extract(item, from: data, to: location, total: &total)
            }
        } catch {
            // Name the entry; a path inside the staging folder means nothing to the caller.
            var named = error
            if error.path != item.path { named.message = "restoring \(item.path): \(error.message)" }
            named.path = item.path
            throw named
        }
    }

    /// Streams one file entry into a durable write, checking it as it goes.
    private func extract(_ item: Item, from data: ZipEntryData, to location: Location, total: inout UInt64)
        throws(SandboxError)
    {
        let entry = item.entry
        var writer = try DurableWriter(system: system, at: location)
        var written: UInt64 = 0
        var runningTotal = total
        let checksum: CRC32
        do {
            checksum = try data.extract(entry, at: item.location, chunkSize: FileEngine.chunkSize) { chunk in
                written += UInt64(chunk.count)
                runningTotal += UInt64(chunk.count)
                try checkWhileStreaming(entry, written: written, total: runningTotal)
                let appended: Result<Void, SandboxError> = chunk.withUnsafeBytes { bytes in
                    Result { () throws(SandboxError) in try writer.append(bytes) }
                }
                try appended.get()
            }
        } catch let error as SandboxError {
            writer.abandon()
            throw error
        } catch {
            writer.abandon()
            throw SandboxError(.invalidBackup, "corrupt data: \(error)", path: item.path)
        }
        if written != entry.uncompressedSize {
            writer.abandon()
            throw SandboxError(
                .invalidBackup, "holds \(written) bytes, its header declares \(entry.uncompressedSize) (truncated?)",
                path: item.path)
        }
        if checksum != entry.checksum {
            writer.abandon()
            throw SandboxError(
                .invalidBackup,
                "CRC-32 mismatch: computed \(String(checksum, radix: 16)), stored \(String(entry.checksum, radix: 16))",
                path: item.path)
        }
        try writer.commit()
        total = runningTotal
    }

    /// The limits again, on the bytes actually coming out: declared sizes can lie.
    private func checkWhileStreaming(_ entry: Entry, written: UInt64, total: UInt64) throws(SandboxError) {
        if written > entry.uncompressedSize {
            throw SandboxError(
                .invalidBackup, "holds more than the \(entry.uncompressedSize) bytes its header declares",
                path: entry.path)
        }
        if total > limits.maxTotalBytes {
            throw SandboxError(
                .invalidBackup, "the archive holds more than \(limits.maxTotalBytes) bytes", path: entry.path)
        }
        if exceedsRatio(written, compressed: entry.compressedSize) {
            throw SandboxError(
                .invalidBackup,
                "compressed more than \(limits.maxCompressionRatio):1 (a ZIP bomb?)", path: entry.path)
        }
    }

    // MARK: 3. Swap

    private enum Swapped {
        /// `renameat2(RENAME_EXCHANGE)`: the old tree is at `staging/<top>`.
        case exchanged
        /// Two renames: the old tree is at `staging/.old-<top>`.
        case renamed
        /// There was no live directory.
        case created
    }

    /// Swaps every staged directory in, or none: a failure swaps back what was
    /// swapped. When that fails too the staging folder holds live data, and
    /// `keepStaging` is set so that it is not removed.
    private func swap(_ tops: [String], root: Int32, staging: DirectoryHandle, keepStaging: inout Bool)
        throws(SandboxError)
    {
        var done: [(String, Swapped)] = []
        do throws(SandboxError) {
            for top in tops {
                done.append((top, try swapOne(top, root: root, staging: staging)))
            }
            try engine.sync(root, path: container.url.path)
            try engine.sync(staging.fd, path: staging.path)
        } catch {
            // The first error is the one reported; one during the undo only adds where
            // the previous directories are.
            let first = error
            do throws(SandboxError) {
                for (top, how) in done.reversed() { try undo(top, how, root: root, staging: staging) }
                try engine.sync(root, path: container.url.path)
            } catch {
                keepStaging = true
                var kept = first
                kept.message +=
                    "; undoing the swap failed too (\(error.message)), the previous directories are in \(staging.path)"
                throw kept
            }
            throw first
        }
    }

    private func swapOne(_ top: String, root: Int32, staging: DirectoryHandle) throws(SandboxError) -> Swapped {
        let live = container.url.path + "/" + top
        let exists = try engine.exists(Location(parent: root, name: top, path: live))
        if !exists {
            try system.rename(staging.fd, top, root, top, path: live)
            return .created
        }
        do {
            try system.renameExchange(staging.fd, top, root, top)
            return .exchanged
        } catch  where error.rawValue == ENOSYS || error.rawValue == EINVAL {
            // No atomic exchange here: move the old tree aside, then the new one in.
            try system.rename(root, top, staging.fd, ".old-" + top, path: live)
            do {
                try system.rename(staging.fd, top, root, top, path: live)
            } catch {
                try? system.rename(staging.fd, ".old-" + top, root, top, path: live)
                throw error
            }
            return .renamed
        } catch {
            throw SandboxError(errno: error.rawValue, path: live, operation: "swap in the restored directory")
        }
    }

    private func undo(_ top: String, _ how: Swapped, root: Int32, staging: DirectoryHandle) throws(SandboxError) {
        let live = container.url.path + "/" + top
        switch how {
        case .exchanged:
            try system.checked("swap back", live) { () throws(Errno) in
                try system.renameExchange(staging.fd, top, root, top)
            }
        case .renamed:
            try system.rename(root, top, staging.fd, top, path: live)
            try system.rename(staging.fd, ".old-" + top, root, top, path: live)
        case .created:
            try system.rename(root, top, staging.fd, top, path: live)
        }
    }
}
