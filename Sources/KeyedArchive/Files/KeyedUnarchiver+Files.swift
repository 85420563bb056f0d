public import AppSandbox
public import Foundation

extension KeyedUnarchiver {
    /// The object of type `Root` archived in the file at `url`, or `nil` when the
    /// archive's root is `nil`.
    ///
    /// ```swift
    /// allItems = try KeyedUnarchiver.unarchivedObject(ofClass: [Item].self, contentsOf: itemArchiveURL) ?? []
    /// ```
    /// - Throws: `SandboxError` when the file cannot be read (`.noSuchFile` when it does
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
    /// ``unarchiveObject(with:limits:)``: names set with ``setClass(_:forClassName:)``,
    /// names this process archived under, and Swift classes by module-qualified name.
    ///
    /// Returns `nil` when the file does not exist (a first launch). When it exists but
    /// cannot be read — a class it names is unknown here, or the file is damaged — it
    /// also returns `nil`, as Foundation's returns or raises, but says so on standard
    /// error, naming the class and the `setClass` call that fixes it, and
    /// ``KeyedArchiver/archiveRootObject(_:toFile:)`` then refuses to replace the file
    /// in this process, so the books' save on exit cannot overwrite the archive with an
    /// empty one. Code that must tell these cases apart uses
    /// ``unarchivedObject(ofClass:contentsOf:limits:fileSystem:)``, which throws.
    public static func unarchiveObject(withFile path: String) -> Any? {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            data = try FileSystem.default.contents(of: url)
        } catch  where error.code == .noSuchFile {
            UnreadableArchives.remove(url.path)
            return nil
        } catch {
            refuse(url.path, because: "cannot be read: \(error)")
            return nil
        }
        do {
            let object = try unarchiveObject(with: data)
            UnreadableArchives.remove(url.path)
            return object
        } catch  where error.code == .unknownClass {
            let name = error.className ?? "?"
            refuse(
                url.path,
                because: """
                    names the class "\(name)", which this program does not know; call \
                    KeyedUnarchiver.setClass(YourType.self, forClassName: "\(name)") before loading it
                    """)
            return nil
        } catch {
            refuse(url.path, because: "is not a readable archive: \(error)")
            return nil
        }
    }

    private static func refuse(_ path: String, because reason: String) {
        UnreadableArchives.insert(path)
        StandardStream.error.report(
            "keepsake: unarchiveObject(withFile:) returns nil: \(path) \(reason). "
                + "The file is kept: archiveRootObject(_:toFile:) will not replace it in this process.")
    }
}
