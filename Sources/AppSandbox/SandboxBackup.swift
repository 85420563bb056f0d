public import Foundation
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Backs a container up to a ZIP file following ``BackupPlan``, and restores one.
///
/// Entries are named from the container root (`Documents/items.archive`,
/// `Library/Preferences/com.example.App.plist`), files deflated, folders as
/// `name/` entries. Both directions stream: memory stays bounded by a constant
/// (a few 64 KiB buffers) whatever the size of the container or the archive.
///
/// A backup is written to a temporary file beside the destination, synced and
/// renamed over it, so an interrupted backup never leaves a half-written archive.
/// A restore is all or nothing: see ``restore(from:into:limits:)``.
///
/// ```swift
/// let plan = try SandboxBackup.write(container: container, to: URL(fileURLWithPath: "backup.zip"))
/// try SandboxBackup.restore(from: URL(fileURLWithPath: "backup.zip"), into: otherContainer)
/// ```
public enum SandboxBackup {
    /// Bounds a restore holds an archive to, so that a hostile ZIP (a "ZIP bomb": a
    /// few megabytes that inflate to gigabytes) is refused cheaply instead of filling
    /// the disk.
    ///
    /// Each bound is checked twice: against what the archive *declares* before
    /// anything is written, and against the bytes that actually come out of the
    /// decompressor while streaming, because declared sizes can lie.
    ///
    /// The defaults:
    /// - `maxTotalBytes`, 4 GiB: all file content together. Generous for one app's
    ///   `Documents` and `Library`; raise it for bigger containers.
    /// - `maxEntries`, 100 000: the listing of every entry is held while the archive
    ///   is checked (a few hundred bytes each), so this also bounds that memory.
    /// - `maxCompressionRatio`, 100:1 per entry, past `ratioAllowance`. Real data
    ///   (text, plists, keyed archives, images) deflates at most to about 1/10 or
    ///   1/20; deflate's ceiling, about 1032:1, is reached only by long runs of one
    ///   byte, which is what bombs are made of. 100:1 is the bound Apache POI uses
    ///   (`ZipSecureFile`, minimum inflate ratio 0.01).
    /// - `ratioAllowance`, 1 MiB: an entry may inflate this far whatever its ratio,
    ///   because small files of one repeated byte are common and harmless.
    ///
    /// ```swift
    /// var limits = SandboxBackup.Limits()
    /// limits.maxTotalBytes = 16 << 30
    /// try SandboxBackup.restore(from: zip, into: container, limits: limits)
    /// ```
    public struct Limits: Sendable, Hashable {
        public var maxTotalBytes: UInt64
        public var maxEntries: Int
        public var maxCompressionRatio: UInt64
        public var ratioAllowance: UInt64

        public init(
            maxTotalBytes: UInt64 = 4 << 30, maxEntries: Int = 100_000, maxCompressionRatio: UInt64 = 100,
            ratioAllowance: UInt64 = 1 << 20
        ) {
            self.maxTotalBytes = maxTotalBytes
            self.maxEntries = maxEntries
            self.maxCompressionRatio = maxCompressionRatio
            self.ratioAllowance = ratioAllowance
        }
    }

    /// Writes a backup of `container` to `zipURL` and returns the plan it followed.
    ///
    /// Each file is read in 64 KiB chunks straight into the deflater, and the ZIP is
    /// written to a `.keepsake-*.tmp` file in the destination folder, synced, renamed
    /// over `zipURL` and the folder synced.
    /// - Throws: ``SandboxError``; an existing file at `zipURL` is then left as it was.
    @discardableResult
    public static func write(container: AppContainer, to zipURL: URL) throws(SandboxError) -> BackupPlan {
        let plan = try BackupPlan(container: container)
        let system = container.system
        let destination = zipURL.standardizedFileURL
        let folder = destination.deletingLastPathComponent()
        let folderFD = try system.open(
            AT_FDCWD, folder.path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: folder.path)
        defer { try? system.close(folderFD) }
        let temporaryName = RelativePath.internalPrefix + String(UInt64.random(in: .min ... .max), radix: 16) + ".tmp"
        let temporary = folder.appendingPathComponent(temporaryName)
        do throws(SandboxError) {
            try writeArchive(plan, of: container, to: temporary, reportedAs: destination.path)
            try DurableRename(system: system, folder: folderFD, path: destination.path)
                .replace(destination.lastPathComponent, with: temporaryName)
        } catch {
            try? system.unlinkat(folderFD, temporaryName, false)
            throw error
        }
        return plan
    }

    /// Restores the files and folders of a backup into `container`, replacing files
    /// of the same name and leaving other files alone. All or nothing: the entries
    /// are written into a staging folder inside the container and swapped in per
    /// top-level directory only when every one of them was read whole and matched
    /// its CRC-32 and size; on any failure the container is left as it was.
    ///
    /// Refused, before anything is written: an entry outside `Documents/` and
    /// `Library/`, inside `Library/Caches/`, with `..`, an absolute path or any other
    /// name a ``SandboxDirectory`` refuses, a symbolic link, a name given twice, and
    /// an archive over the `limits`. Refused while streaming: an entry whose data
    /// fails its CRC-32, is shorter or longer than declared, or passes the limits; a
    /// file where the container (or the backup) has a folder, or the other way round.
    ///
    /// Restore while the app is not running: a process holding a folder open keeps
    /// seeing the previous one.
    ///
    /// - Returns: the restored paths, from the container root.
    /// - Throws: ``SandboxError``, its `path` the entry at fault: `.invalidBackup`
    ///   (malformed, corrupt or over the limits), `.outsideContainer`,
    ///   `.invalidName`, or a file error such as `.isADirectory` or `.noSpace`.
    @discardableResult
    public static func restore(from zipURL: URL, into container: AppContainer, limits: Limits = Limits())
        throws(SandboxError) -> [String]
    {
        try BackupRestore(container: container, zipURL: zipURL, limits: limits).run()
    }

    // MARK: Writing

    private static func writeArchive(
        _ plan: BackupPlan, of container: AppContainer, to url: URL, reportedAs path: String
    ) throws(SandboxError) {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .create)
        } catch {
            throw SandboxError(.systemError, "cannot create a ZIP archive: \(error)", path: path)
        }
        for item in plan.items {
            do {
                if item.kind == .directory {
                    try archive.addEntry(
                        with: item.path + "/", type: .directory, uncompressedSize: Int64(0),
                        modificationDate: item.modificationDate, provider: { _, _ in Data() })
                } else {
                    try addFile(item, of: container, to: archive)
                }
            } catch let error as SandboxError {
                throw error
            } catch {
                throw SandboxError(.systemError, "cannot add \(item.path) to the archive: \(error)", path: path)
            }
        }
        // Read the archive back: a write error the ZIP library only saw while
        // flushing shows up here as a missing or short central directory.
        do {
            let check = try Archive(url: url, accessMode: .read)
            var count = 0
            for _ in check { count += 1 }
            guard count == plan.items.count else { throw Archive.ArchiveError.invalidCentralDirectoryEntryCount }
        } catch {
            throw SandboxError(.ioError, "the archive did not read back: \(error)", path: path)
        }
    }

    /// Streams one file into the archive from a descriptor opened through the
    /// container's resolver.
    private static func addFile(_ item: BackupPlan.Item, of container: AppContainer, to archive: Archive) throws {
        let (kind, rest) = try split(item.path)
        let system = container.system
        let fd = try container.directory(kind).withItem(rest, followFinalLink: false) {
            location throws(SandboxError) in
            try system.open(
                location.parent, location.name, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, path: location.path)
        }
        defer { try? system.close(fd) }
        let status = try system.checked("stat", item.path) { () throws(Errno) in try system.fstat(fd) }
        let engine = FileEngine(system: system)
        try archive.addEntry(
            with: item.path, type: .file, uncompressedSize: status.size, modificationDate: item.modificationDate,
            compressionMethod: .deflate, bufferSize: FileEngine.chunkSize
        ) { _, count in
            try engine.readChunk(fd, count: count, path: item.path)
        }
    }

    /// Splits a container-relative path into its included top-level directory and
    /// the rest.
    private static func split(_ path: String) throws(SandboxError) -> (AppContainer.Directory, String) {
        let (top, rest) = try BackupRestore.split(path)
        return (top == "Documents" ? .documents : .library, rest)
    }
}
