public import AppSandbox
public import Foundation

extension KeyedUnarchiver {
    /// The object of type `Root` archived in the file at `url`, or `nil` when the
    /// archive's root is `nil`.
    ///
    /// ```swift
    /// allItems = try KeyedUnarchiver.unarchivedObject(ofClass: [Item].self, contentsOf: itemArchiveURL) ?? []
    /// ```
    /// - Throws: ``SandboxError`` when the file cannot be read (`.noSuchFile` when it does
    ///   not exist), ``KeyedArchiveError`` when it is not a readable archive of `Root`.
    public static func unarchivedObject<Root: KeyedArchivable>(
        ofClass type: Root.Type, contentsOf url: URL, limits: PropertyListLimits = .default,
        fileSystem: FileSystem = .default
    ) throws -> Root? {
        let data = try fileSystem.contents(of: url)
        return try unarchivedObject(ofClass: type, from: data, limits: limits)
    }

    /// The seeds' one-liner: `NSKeyedUnarchiver.unarchiveObject(withFile: path) as? [Item]`.
    /// Classes are found by their archived names without secure decoding, as with
    /// ``unarchiveObject(with:limits:)``. Returns `nil` when the file is missing *or*
    /// unreadable, as Foundation's does; code that must tell a first launch from a
    /// damaged file uses ``unarchivedObject(ofClass:contentsOf:limits:fileSystem:)``.
    public static func unarchiveObject(withFile path: String) -> Any? {
        guard let data = try? FileSystem.default.contents(of: URL(fileURLWithPath: path)) else { return nil }
        return try? unarchiveObject(with: data)
    }
}
