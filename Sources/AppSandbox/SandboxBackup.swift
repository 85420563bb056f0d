public import Foundation
import ZIPFoundation

/// Backs a container up to a ZIP file following ``BackupPlan``, and restores one.
///
/// Entries are named from the container root (`Documents/items.archive`,
/// `Library/Preferences/com.example.App.plist`), files deflated, folders as
/// `name/` entries. The ZIP is built in memory and written with a durable atomic
/// replace, so an interrupted backup never leaves a half-written archive.
///
/// ```swift
/// let plan = try SandboxBackup.write(container: container, to: URL(fileURLWithPath: "backup.zip"))
/// try SandboxBackup.restore(from: URL(fileURLWithPath: "backup.zip"), into: otherContainer)
/// ```
public enum SandboxBackup {
    /// Writes a backup of `container` to `zipURL` and returns the plan it followed.
    /// - Throws: ``SandboxError``; an existing file at `zipURL` is then left as it was.
    @discardableResult
    public static func write(container: AppContainer, to zipURL: URL) throws(SandboxError) -> BackupPlan {
        let plan = try BackupPlan(container: container)
        let archive: Archive
        do {
            archive = try Archive(data: Data(), accessMode: .create)
        } catch {
            throw SandboxError(.systemError, "cannot create a ZIP archive: \(error)", path: zipURL.path)
        }
        for item in plan.items {
            let (kind, rest) = try split(item.path)
            switch item.kind {
            case .directory:
                try add(archive, item.path + "/", .directory, Data(), item.modificationDate, zipURL)
            default:
                let data = try container.directory(kind).contents(of: rest)
                try add(archive, item.path, .file, data, item.modificationDate, zipURL)
            }
        }
        guard let data = archive.data else {
            throw SandboxError(.systemError, "the ZIP archive produced no data", path: zipURL.path)
        }
        try FileSystem(system: container.system).write(data, to: zipURL)
        return plan
    }

    /// Restores the files and folders of a backup into `container`, replacing files
    /// of the same name and leaving other files alone. Every entry is checked before
    /// anything is written: an entry outside `Documents/` and `Library/`, inside
    /// `Library/Caches/`, with `..`, an absolute path or any other name a
    /// ``SandboxDirectory`` refuses, or a symbolic link, fails the whole restore.
    ///
    /// - Parameter maxTotalBytes: refuses archives announcing more content than this
    ///   (ZIP bombs); each entry is also held to the size it announces.
    /// - Returns: the restored paths, from the container root.
    /// - Throws: ``SandboxError`` `.invalidBackup`, `.outsideContainer`, `.invalidName`
    ///   or a file error.
    @discardableResult
    public static func restore(
        from zipURL: URL, into container: AppContainer, maxTotalBytes: UInt64 = 1 << 34
    ) throws(SandboxError) -> [String] {
        let archive: Archive
        do {
            archive = try Archive(url: zipURL, accessMode: .read)
        } catch {
            throw SandboxError(.invalidBackup, "not a readable ZIP archive: \(error)", path: zipURL.path)
        }
        // First pass: check everything, touch nothing.
        var planned: [(entry: Entry, kind: AppContainer.Directory, rest: String)] = []
        var total: UInt64 = 0
        for entry in archive {
            var path = entry.path
            if entry.type == .symlink {
                throw SandboxError(.invalidBackup, "symbolic links are not restored", path: path)
            }
            if path.hasSuffix("/") { path.removeLast() }
            let (kind, rest) = try split(path)
            if kind == .library, let first = rest.split(separator: "/").first, first == "Caches" {
                throw SandboxError(.invalidBackup, "Caches are never part of a backup", path: entry.path)
            }
            if !rest.isEmpty { _ = try RelativePath.components(of: rest) }
            let (sum, overflow) = total.addingReportingOverflow(entry.uncompressedSize)
            if overflow || sum > maxTotalBytes {
                throw SandboxError(
                    .invalidBackup, "archive announces more than \(maxTotalBytes) bytes", path: zipURL.path)
            }
            total = sum
            planned.append((entry, kind, rest))
        }
        var restored: [String] = []
        for (entry, kind, rest) in planned where !rest.isEmpty {
            let directory = container.directory(kind)
            if entry.type == .directory {
                try directory.createDirectory(rest)
            } else {
                if let slash = rest.lastIndex(of: "/") { try directory.createDirectory(String(rest[..<slash])) }
                try directory.write(try extract(entry, from: archive, path: zipURL.path), to: rest)
            }
            restored.append((kind.pathComponents + [rest]).joined(separator: "/"))
        }
        return restored
    }

    // MARK: Helpers

    /// Splits a container-relative path into its included top-level directory and
    /// the rest.
    private static func split(_ path: String) throws(SandboxError) -> (AppContainer.Directory, String) {
        let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let rest = parts.count > 1 ? String(parts[1]) : ""
        switch parts.first.map(String.init) {
        case "Documents": return (.documents, rest)
        case "Library": return (.library, rest)
        default:
            if path.hasPrefix("/") { throw SandboxError(.outsideContainer, "absolute path in a backup", path: path) }
            throw SandboxError(.invalidBackup, "only Documents/ and Library/ are restored", path: path)
        }
    }

    private static func add(
        _ archive: Archive, _ path: String, _ type: Entry.EntryType, _ data: Data, _ date: Date, _ zipURL: URL
    ) throws(SandboxError) {
        do {
            try archive.addEntry(
                with: path, type: type, uncompressedSize: Int64(data.count), modificationDate: date,
                compressionMethod: type == .file ? .deflate : .none
            ) { position, size in
                let start = Int(position)
                return data.subdata(in: start..<min(start + size, data.count))
            }
        } catch {
            throw SandboxError(.systemError, "cannot add \(path) to the archive: \(error)", path: zipURL.path)
        }
    }

    private static func extract(_ entry: Entry, from archive: Archive, path: String) throws(SandboxError) -> Data {
        var data = Data()
        let limit = entry.uncompressedSize
        do {
            _ = try archive.extract(entry) { chunk in
                data.append(chunk)
                if UInt64(data.count) > limit { throw Archive.ArchiveError.invalidEntrySize }
            }
        } catch {
            throw SandboxError(.invalidBackup, "cannot extract \(entry.path): \(error)", path: path)
        }
        return data
    }
}
