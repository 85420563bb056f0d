public import AppSandbox
public import Foundation

extension KeyedArchiver {
    /// Archives `root` into the file at `url`, replacing it durably and atomically: the
    /// bytes go to a temporary file in the same directory, which is synced, renamed over
    /// the old file, and the directory synced (see `FileSystem.write(_:to:)`). A failed
    /// save leaves the previous file as it was.
    ///
    /// ```swift
    /// try KeyedArchiver.archive(allItems, to: itemArchiveURL)
    /// ```
    /// - Throws: ``KeyedArchiveError`` when the graph cannot be archived (nothing is
    ///   written), `SandboxError` when the file cannot be replaced.
    public static func archive<Root: KeyedArchivable>(
        _ root: Root, to url: URL, format: PropertyListFormat = .binary, fileSystem: FileSystem = .default
    ) throws {
        let data = try archivedData(withRootObject: root, format: format)
        try fileSystem.write(data, to: url)
    }

    /// The seeds' one-liner: `NSKeyedArchiver.archiveRootObject(allItems, toFile: path)`.
    /// Returns whether the save succeeded, as Foundation's does; the write is durable and
    /// atomic like ``archive(_:to:format:fileSystem:)``, which says *why* a save failed
    /// and is the better call for new code.
    ///
    /// A file that ``KeyedUnarchiver/unarchiveObject(withFile:)`` could not read in this
    /// process is not replaced (the save returns `false` and says why on standard error):
    /// the books' app, having started empty, would otherwise overwrite the user's
    /// archive on exit.
    @discardableResult
    public static func archiveRootObject<Root: KeyedArchivable>(_ root: Root, toFile path: String) -> Bool {
        let url = URL(fileURLWithPath: path)
        guard !UnreadableArchives.contains(url.path) else {
            StandardStream.error.report(
                "keepsake: archiveRootObject(_:toFile:) does not replace \(url.path): it could not be read in this "
                    + "process, and replacing it would lose what it holds.")
            return false
        }
        do {
            try archive(root, to: url)
            return true
        } catch {
            StandardStream.error.report("keepsake: archiveRootObject(_:toFile:) could not save \(url.path): \(error)")
            return false
        }
    }
}
