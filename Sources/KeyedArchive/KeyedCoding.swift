/// A type that archives itself field by field under string keys.
///
/// Corresponds to `NSCoding`: the books' insecure `unarchiveObject(withFile:)` decodes
/// these; the secure calls (the default) decode types that adopt ``KeyedSecureCoding``,
/// as Apple's decode only `NSSecureCoding` classes. Structs and classes adopt it without
/// a base class; the port of a book's model class is mechanical:
///
/// | Apple | Keepsake |
/// |---|---|
/// | `class Item: NSObject, NSCoding` | `final class Item: KeyedCoding` |
/// | `func encode(with aCoder: NSCoder)` | `func encode(with coder: KeyedEncoder)` |
/// | `required init?(coder aDecoder: NSCoder)` | `required init?(coder aDecoder: KeyedDecoder)` (`required` in a non-final class) |
/// | `return nil` on bad data | `return nil`, or `throw` any error: either becomes `.decodingFailed` naming the class |
///
/// Every spelling the books use satisfies the requirement: `init?(coder:)`,
/// `init(coder:)`, their throwing forms, `convenience` or not, in classes final or not and
/// in structs.
///
/// ```swift
/// final class Item: KeyedCoding {
///     var name: String
///     var serialNumber: String?
///     var valueInDollars: Int
///
///     func encode(with coder: KeyedEncoder) {
///         coder.encode(name, forKey: "name")
///         coder.encode(serialNumber, forKey: "serialNumber")
///         coder.encode(valueInDollars, forKey: "valueInDollars")
///     }
///
///     init(coder: KeyedDecoder) throws {
///         name = try coder.decode(String.self, forKey: "name")
///         serialNumber = try coder.decodeIfPresent(String.self, forKey: "serialNumber")
///         valueInDollars = coder.decodeInteger(forKey: "valueInDollars")
///     }
/// }
/// ```
///
/// Class hierarchies chain as in Objective-C: a subclass's `encode(with:)` calls
/// `super.encode(with:)`, its `init(coder:)` calls `try super.init(coder:)`. The archive
/// records the class chain in `$classes`, built from the Swift superclasses'
/// ``archiveClassName``s and ending in `NSObject`, as Foundation writes it.
public protocol KeyedCoding: KeyedArchivable {
    /// The name written as `$classname`. The default is the module-qualified type name
    /// (`Homepwner.Item`), Apple's convention for Swift classes. Override it (as a
    /// `class var` in a class hierarchy) to write the name another app expects.
    static var archiveClassName: String { get }

    /// The class version a decoder sees through ``KeyedDecoder/version(forClassName:)``
    /// to migrate old archives; `0` by default. Corresponds to `NSObject.version`.
    /// When a class or one of its superclasses has a version other than `0`, the class
    /// entry stores one per `$classes` element under `$classversions`, which Foundation
    /// ignores.
    static var archiveClassVersion: Int { get }

    /// Writes every property under its key. Corresponds to `encode(with:)`.
    func encode(with coder: KeyedEncoder)

    /// Reads the properties back. Corresponds to `init?(coder:)`: return `nil` on bad
    /// data, as the books do, or throw to give the reason; the unarchiver reports either
    /// as `.decodingFailed` with the class name and key path, never a trap.
    init?(coder: KeyedDecoder) throws

    /// Makes an instance with ``init(coder:)``; `nil` from it is thrown as
    /// `.decodingFailed`. The unarchiver's plumbing: the default, inlined into each
    /// conforming type's witness, spares the unarchiver a run-time look-up of
    /// `Optional<Self>`'s metadata for every object it makes.
    static func _instantiate(coder: KeyedDecoder) throws -> any KeyedCoding
}

extension KeyedCoding {
    public static var archiveClassName: String { String(reflecting: self) }

    @inlinable
    public static func _instantiate(coder: KeyedDecoder) throws -> any KeyedCoding {
        guard let object = try Self(coder: coder) else {
            throw KeyedArchiveError(.decodingFailed, "\(Self.self).init(coder:) returned nil")
        }
        return object
    }

    public static var archiveClassVersion: Int { 0 }

    public static var _allowedClasses: [Any.Type] { [Self.self] }

    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        PropertyListUID(UInt64(encoder.encodeInstance(self)))
    }

    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> Self
    {
        try decoder.decodeInstance(of: Self.self, uid: decoder.checkedUID(uid))
    }
}
