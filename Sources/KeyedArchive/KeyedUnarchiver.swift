public import Foundation

/// One-call unarchiving.
///
/// Corresponds to `NSKeyedUnarchiver`'s class methods. Each reads the object under
/// `root` in `$top` (``unarchivedTopLevelObjects(from:limits:)`` reads every key).
/// Secure decoding is on, with Apple's rules: the classes asked for are allowed, with
/// their subclasses, and each must adopt ``KeyedSecureCoding``. A root that is absent or
/// `nil` is an error (`.keyNotFound`, Foundation's 4865), as in Foundation.
///
/// ```swift
/// let items = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Item.self, from: data) ?? []
/// ```
public enum KeyedUnarchiver {
    /// Decodes objects archived under `name` as `type` in every unarchiver of the process,
    /// the one-liners included; `nil` removes the mapping. An app that reads archives
    /// written by its iOS version maps the iOS module's names to its own classes:
    ///
    /// ```swift
    /// KeyedUnarchiver.setClass(Item.self, forClassName: "Homepwner.Item")
    /// ```
    /// Corresponds to the class method `NSKeyedUnarchiver.setClass(_:forClassName:)`.
    public static func setClass(_ type: (any KeyedCoding.Type)?, forClassName name: String) {
        ProcessClassNames.setClass(type, forClassName: name)
    }

    /// The type set for `name` with ``setClass(_:forClassName:)``.
    /// Corresponds to the class method `NSKeyedUnarchiver.class(forClassName:)`.
    public static func `class`(forClassName name: String) -> (any KeyedCoding.Type)? {
        ProcessClassNames.class(forClassName: name)
    }

    /// Corresponds to `unarchivedObject(ofClass:from:)`.
    /// - Throws: ``KeyedArchiveError``, e.g. `.typeMismatch` when the root is not a `Root`.
    public static func unarchivedObject<Root: KeyedArchivable>(
        ofClass type: Root.Type, from data: Data, limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) -> Root? {
        try unarchivedObject(ofClass: type, decoder: KeyedDecoder(forReadingFrom: data, limits: limits))
    }

    /// ``unarchivedObject(ofClass:from:limits:)`` reading bytes.
    public static func unarchivedObject<Root: KeyedArchivable>(
        ofClass type: Root.Type, from bytes: [UInt8], limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) -> Root? {
        try unarchivedObject(ofClass: type, decoder: KeyedDecoder(bytes: bytes, limits: limits))
    }

    /// The `Root` a store wrote itself, read back as the store accepted it for writing:
    /// with secure decoding when every type `Root` is made of adopts
    /// ``KeyedSecureCoding`` and supports it, and without secure decoding when one is a
    /// plain ``KeyedCoding`` type, as the books' `unarchiveObject(withFile:)` reads back
    /// their `NSCoding` items. The root must still be a `Root`.
    ///
    /// For the files and rows a store writes with ``KeyedArchiver`` (an `ItemStore`'s
    /// archive, journal and shared rows); read an archive from anywhere else with
    /// `unarchivedObject(ofClass:from:)`, which requires secure coding as Apple's does.
    /// - Throws: ``KeyedArchiveError``, e.g. `.typeMismatch` when the root is not a `Root`.
    public static func unarchivedStoredObject<Root: KeyedArchivable>(
        ofClass type: Root.Type, from data: Data, limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) -> Root? {
        let decoder = try KeyedDecoder(forReadingFrom: data, limits: limits)
        decoder.requiresSecureCoding = type._allowedClasses.allSatisfy { allowed in
            guard let coding = allowed as? any KeyedCoding.Type else { return true }
            return (coding as? any KeyedSecureCoding.Type)?.supportsSecureCoding == true
        }
        return try unarchivedObject(ofClass: type, decoder: decoder)
    }

    private static func unarchivedObject<Root: KeyedArchivable>(
        ofClass type: Root.Type, decoder: KeyedDecoder
    ) throws(KeyedArchiveError) -> Root? {
        let root: Root?
        do {
            root = try decoder.decodeIfPresent(type, forKey: ArchiveFormat.rootKey)
        } catch  where error.code == .typeMismatch {
            // Foundation lets an inline string, number or data through secure decoding
            // with a warning, and its Swift overlay's `as? Root` makes it nil: no error.
            guard try decoder.passesUnlistedInlineRoot(as: type) else { throw error }
            return nil
        }
        if let error = decoder.error { throw error }
        guard let root else { throw rootNotFound() }
        return root
    }

    /// Foundation's 4865 for an archive whose root is absent or `$null`.
    package static func rootNotFound() -> KeyedArchiveError {
        KeyedArchiveError(.keyNotFound, "requested key: 'root'", keyPath: "root")
    }

    /// Corresponds to `unarchivedArrayOfObjects(ofClass:from:)`, with its rule: one
    /// collection, the root, so the elements may not hold collections of their own
    /// (`unarchivedObject(ofClass:from:)` of `[Element]` has no such rule).
    /// - Throws: ``KeyedArchiveError``.
    public static func unarchivedArrayOfObjects<Element: KeyedArchivable>(
        ofClass type: Element.Type, from data: Data, limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) -> [Element]? {
        let decoder = try KeyedDecoder(forReadingFrom: data, limits: limits)
        return try rootCollection(decoder, decoder.decodeArrayOfObjects(ofClass: type, forKey: ArchiveFormat.rootKey))
    }

    /// Corresponds to `unarchivedDictionary(ofKeyClass:objectClass:from:)`, with the
    /// rule of ``unarchivedArrayOfObjects(ofClass:from:limits:)``.
    /// - Throws: ``KeyedArchiveError``.
    public static func unarchivedDictionary<Key: KeyedArchivable & Hashable, Value: KeyedArchivable>(
        ofKeyClass keyType: Key.Type, objectClass valueType: Value.Type, from data: Data,
        limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) -> [Key: Value]? {
        let decoder = try KeyedDecoder(forReadingFrom: data, limits: limits)
        return try rootCollection(
            decoder,
            decoder.decodeDictionary(withKeysOfClass: keyType, objectsOfClass: valueType, forKey: ArchiveFormat.rootKey)
        )
    }

    private static func rootCollection<Root>(_ decoder: KeyedDecoder, _ root: Root?) throws(KeyedArchiveError) -> Root {
        if let error = decoder.error { throw error }
        guard let root else { throw rootNotFound() }
        return root
    }

    /// The root as `decodeObject(forKey:)` returns it, when every object in the archive
    /// is of one of `types` or a subclass: Keepsake types and Foundation's classes, as
    /// in Apple's call (`[NSArray.self, Item.self]`). Inline strings, numbers and data pass
    /// unlisted with a warning, as in Foundation; containers and dates must be listed.
    /// Corresponds to `unarchivedObject(ofClasses:from:)`.
    /// - Throws: ``KeyedArchiveError``: `.classNotAllowed` naming the first class outside
    ///   the set, `.keyNotFound` for a `nil` root.
    public static func unarchivedObject(
        ofClasses types: [Any.Type], from data: Data, limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) -> Any? {
        let decoder = try KeyedDecoder(forReadingFrom: data, limits: limits)
        decoder.allowClasses(types)
        let root = try decoder.decodeTopLevelObject(forKey: ArchiveFormat.rootKey)
        if let error = decoder.error { throw error }
        guard let root else { throw rootNotFound() }
        return root
    }

    /// The root without secure decoding: Swift classes are found by their archived,
    /// module-qualified name (structs must be passed to ``unarchivedObject(ofClasses:from:limits:)``).
    /// Corresponds to the deprecated `unarchiveObject(with:)` the books use; prefer the
    /// secure calls for data that may not be your own.
    /// - Throws: ``KeyedArchiveError``.
    public static func unarchiveObject(with data: Data, limits: PropertyListLimits = .default) throws(KeyedArchiveError)
        -> Any?
    {
        let decoder = try KeyedDecoder(forReadingFrom: data, limits: limits)
        decoder.requiresSecureCoding = false
        let root = try decoder.decodeTopLevelObject(forKey: ArchiveFormat.rootKey)
        if let error = decoder.error { throw error }
        return root
    }

    /// Every key of `$top` with its object, objects of unknown classes as
    /// ``ArchivedObject``s: what it takes to inspect a nib (`IB.objectdata`), an
    /// `xcuserstate` file (`State`) or any archive whose classes are not at hand.
    /// - Throws: ``KeyedArchiveError``.
    public static func unarchivedTopLevelObjects(
        from data: Data, limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) -> [(key: String, value: Any?)] {
        let decoder = try KeyedDecoder(forReadingFrom: data, limits: limits)
        decoder.allowsGenericObjects = true
        var result: [(key: String, value: Any?)] = []
        for key in decoder.allKeys {
            result.append((key, try decoder.decodeTopLevelObject(forKey: key)))
        }
        if let error = decoder.error { throw error }
        return result
    }

    /// A `Decodable` root stored by ``KeyedArchiver/archivedData(withRootEncodable:format:)``
    /// or Foundation's `encodeEncodable(_:forKey:)`.
    /// - Throws: ``KeyedArchiveError``.
    public static func unarchivedDecodable<Root: Decodable>(
        _ type: Root.Type, from data: Data, limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) -> Root? {
        let decoder = try KeyedDecoder(forReadingFrom: data, limits: limits)
        return try decoder.decodeTopLevelDecodable(type, forKey: ArchiveFormat.rootKey)
    }
}
