public import Foundation

/// One-call archiving of an object graph.
///
/// Corresponds to `NSKeyedArchiver`'s class methods. The root object is stored under
/// `root` in `$top`, as Foundation does, so Foundation's `NSKeyedUnarchiver`, Python's
/// `bpylist2` and this package's ``KeyedUnarchiver`` all read it.
///
/// ```swift
/// let data = try KeyedArchiver.archivedData(withRootObject: itemStore.allItems)
/// ```
public enum KeyedArchiver {
    /// Writes `name` instead of `type`'s ``KeyedCoding/archiveClassName`` in every
    /// archiver of the process, the one-liners included; `nil` removes the mapping. The
    /// process's unarchivers find `type` under that name too.
    ///
    /// ```swift
    /// KeyedArchiver.setClassName("Homepwner.Item", for: Item.self)   // as the iOS app writes it
    /// ```
    /// Corresponds to the class method `NSKeyedArchiver.setClassName(_:for:)`.
    public static func setClassName(_ name: String?, for type: any KeyedCoding.Type) {
        ProcessClassNames.setClassName(name, for: type)
    }

    /// The name set for `type` with ``setClassName(_:for:)``.
    /// Corresponds to the class method `NSKeyedArchiver.className(for:)`.
    public static func className(for type: any KeyedCoding.Type) -> String? {
        ProcessClassNames.className(for: type)
    }

    /// Corresponds to `archivedData(withRootObject:requiringSecureCoding:)`.
    /// - Parameters:
    ///   - root: the root object, stored under `root` in `$top`.
    ///   - format: `.binary` (the default) or `.xml`.
    /// - Throws: ``KeyedArchiveError``: `.unsupportedValue`, `.limitExceeded`.
    public static func archivedData<Root: KeyedArchivable>(
        withRootObject root: Root, format: PropertyListFormat = .binary
    ) throws(KeyedArchiveError) -> Data {
        Data(try archivedBytes(withRootObject: root, format: format))
    }

    /// ``archivedData(withRootObject:format:)-(Root,_)`` as bytes.
    public static func archivedBytes<Root: KeyedArchivable>(
        withRootObject root: Root, format: PropertyListFormat = .binary
    ) throws(KeyedArchiveError) -> [UInt8] {
        let encoder = KeyedEncoder(outputFormat: format)
        encoder.encode(root, forKey: ArchiveFormat.rootKey)
        return try encoder.encodedBytes
    }

    /// A root whose type is known only at run time (`[Any]`, `[AnyHashable: Any]`, a
    /// generic object graph…).
    /// - Throws: ``KeyedArchiveError``: `.unsupportedValue` for a value that is not archivable.
    public static func archivedData(withRootObject root: Any, format: PropertyListFormat = .binary)
        throws(KeyedArchiveError) -> Data
    {
        let encoder = KeyedEncoder(outputFormat: format)
        encoder.encode(root as Any?, forKey: ArchiveFormat.rootKey)
        return try encoder.encodedData
    }

    /// An `Encodable` value, stored as Foundation property-list objects under `root`;
    /// see ``KeyedEncoder/encodeEncodable(_:forKey:)``.
    /// - Throws: ``KeyedArchiveError``.
    public static func archivedData<Root: Encodable>(
        withRootEncodable root: Root, format: PropertyListFormat = .binary
    ) throws(KeyedArchiveError) -> Data {
        let encoder = KeyedEncoder(outputFormat: format)
        try encoder.encodeEncodable(root, forKey: ArchiveFormat.rootKey)
        return try encoder.encodedData
    }
}
