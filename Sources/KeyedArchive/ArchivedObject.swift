/// An archived object of a class no Swift type was given for, kept as data: its class
/// name, its class chain and every field.
///
/// The unarchiver produces these when ``KeyedDecoder/allowsGenericObjects`` is on
/// (``KeyedUnarchiver/unarchivedTopLevelObjects(from:limits:)`` turns it on), which is
/// what an inspection tool needs to print a nib or an `xcuserstate` file. Field values
/// are what ``KeyedDecoder/decodeObject(forKey:)`` returns: `String`, `Int`, `Double`,
/// `Bool`, `Data`, `Date`, `UUID`, `URL`, `[Any]`, `[AnyHashable: Any]`,
/// `Set<AnyHashable>`, other `ArchivedObject`s, or `nil` for `$null`. Objects are
/// reference types compared by identity, so shared objects stay shared and cycles
/// (a view's superview pointing back) are plain references.
///
/// Archiving an `ArchivedObject` writes it back with the same class chain and fields.
///
/// ```swift
/// let top = try KeyedUnarchiver.unarchivedTopLevelObjects(from: nibData)
/// if let objects = top.first?.value as? ArchivedObject {
///     print(objects.className, objects.fields.map(\.key))
/// }
/// ```
public final class ArchivedObject {
    /// `$classname`.
    public let className: String
    /// `$classes`: the class and its superclasses, most derived first.
    public let classChain: [String]
    /// The fields in archive order (`$class` excluded).
    public var fields: [(key: String, value: Any?)]

    public init(className: String, classChain: [String]? = nil, fields: [(key: String, value: Any?)] = []) {
        self.className = className
        self.classChain = classChain ?? [className, "NSObject"]
        self.fields = fields
    }

    /// The value under `key`; `nil` when absent or `$null`.
    public subscript(key: String) -> Any? {
        fields.first { $0.key == key }?.value ?? nil
    }
}

extension ArchivedObject: Hashable {
    public static func == (lhs: ArchivedObject, rhs: ArchivedObject) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

extension ArchivedObject: CustomStringConvertible {
    /// The class name and keys; values are not expanded, since graphs may be cyclic.
    public var description: String {
        "<\(className): \(fields.map(\.key).joined(separator: ", "))>"
    }
}

extension ArchivedObject: KeyedArchivable {
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        PropertyListUID(UInt64(encoder.encodeGenericObject(self)))
    }

    /// Any object decodes as a generic one, whatever its class.
    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError) -> ArchivedObject {
        try decoder.decodeGenericObject(uid: decoder.checkedUID(uid))
    }
}
