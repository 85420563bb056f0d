public import AppSandbox
public import Foundation

extension KeyedArchiver {
    /// Archives `root` into the file at `url`, replacing it durably and atomically: the
    /// bytes go to a temporary file in the same directory, which is synced, renamed over
    /// the old file, and the directory synced (see ``FileSystem/write(_:to:)``). A failed
    /// save leaves the previous file as it was.
    ///
    /// ```swift
    /// try KeyedArchiver.archive(allItems, to: itemArchiveURL)
    /// ```
    /// - Throws: ``KeyedArchiveError`` when the graph cannot be archived (nothing is
    ///   written), ``SandboxError`` when the file cannot be replaced.
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
    @discardableResult
    public static func archiveRootObject<Root: KeyedArchivable>(_ root: Root, toFile path: String) -> Bool {
        do {
            try archive(root, to: URL(fileURLWithPath: path))
            return true
        } catch {
            return false
        }
    }
}
