/// A value the keyed archiver can store as an object in `$objects` and read back.
///
/// Foundation's property-list types conform the way `NSKeyedArchiver` stores their
/// bridged classes: `String` (an `NSString`, inline), `Data` (inline), `Date`
/// (`NSDate`), `UUID` (`NSUUID`), `URL` (`NSURL`), integers, `Double`, `Float` and
/// `Bool` (`NSNumber`, inline), arrays (`NSArray`), dictionaries (`NSDictionary`) and
/// sets (`NSSet`) of archivable values, `PropertyListValue` trees, generic
/// ``ArchivedObject``s, and every ``KeyedCoding`` type.
///
/// Corresponds to the set of classes that adopt `NSCoding`. Adopt ``KeyedCoding`` for
/// your own types; the underscored requirements below are the archiver's plumbing and
/// have working defaults for any conforming type.
public protocol KeyedArchivable {
    /// Adds `self` to the archive as one object (or finds the one it already is) and
    /// returns its UID.
    func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID

    /// Stores `self` under `key` of the object being encoded. The default stores a
    /// reference to ``_encodeObject(to:)``; numbers and booleans store themselves inline.
    func _encodeField(to encoder: KeyedEncoder, forKey key: String)

    /// Decodes the object with UID `uid`.
    /// - Throws: ``KeyedArchiveError``.
    static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError) -> Self

    /// Decodes a field's stored value. The default follows a UID with
    /// ``_decodeObject(at:from:)``; numbers and booleans also accept inline values.
    /// - Throws: ``KeyedArchiveError``.
    static func _decodeField(_ value: PropertyListValue, from decoder: KeyedDecoder) throws(KeyedArchiveError) -> Self

    /// The classes a typed decode of this type allows, as the list of classes Apple's
    /// matching call takes: `[NSArray.self, Item.self]` for `[Item]`. What the object's
    /// own `init(coder:)` reads with ``KeyedDecoder/decodeObject(forKey:)`` is checked
    /// against it. The default is the type itself for a ``KeyedCoding`` type.
    static var _allowedClasses: [Any.Type] { get }
}

extension KeyedArchivable {
    public static var _allowedClasses: [Any.Type] { [] }

    public func _encodeField(to encoder: KeyedEncoder, forKey key: String) {
        encoder.appendField(key, .uid(Int(_encodeObject(to: encoder).value)))
    }

    public static func _decodeField(_ value: PropertyListValue, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> Self
    {
        guard case .uid(let uid) = value else {
            throw KeyedArchiveError(
                .typeMismatch, "expected a reference to \(Self.self), found an inline \(value.kindName)")
        }
        return try _decodeObject(at: uid, from: decoder)
    }
}
