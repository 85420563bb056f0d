import Foundation

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
/// Memory: nibs are full of cycles, so the unarchiver keeps generic graphs free of
/// reference cycles. An object holds the objects that were decoded after it strongly
/// and those decoded before it (its ancestors among them) weakly; every object is
/// strongly reachable from the top-level values, so the graph lives exactly as long as
/// they do. Reading ``fields`` or a subscript gives plain `ArchivedObject`s either way;
/// a weak reference whose object is gone (the top-level values were released while a
/// part of the graph was kept) reads as `nil`, and is left out of collections.
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
    public var fields: [(key: String, value: Any?)] {
        get { storage.map { ($0.key, $0.value.map(WeakObject.resolved) ?? nil) } }
        set { storage = newValue }
    }

    /// Fields as stored: references to objects decoded earlier wrapped in ``WeakObject``.
    var storage: [(key: String, value: Any?)]
    /// Decoding order; `Int.max` for objects made in code, which hold every field strongly.
    let serial: Int

    public init(className: String, classChain: [String]? = nil, fields: [(key: String, value: Any?)] = []) {
        self.className = className
        self.classChain = classChain ?? [className, "NSObject"]
        storage = fields
        serial = .max
    }

    init(className: String, classChain: [String], serial: Int) {
        self.className = className
        self.classChain = classChain
        storage = []
        self.serial = serial
    }

    /// The value under `key`; `nil` when absent or `$null`.
    public subscript(key: String) -> Any? {
        guard let value = storage.first(where: { $0.key == key })?.value else { return nil }
        return WeakObject.resolved(value)
    }

    /// `value` as stored in this object: objects decoded no later than this one become
    /// weak references, so strong references only ever point to later objects and
    /// cannot form a cycle.
    func stored(_ value: Any) -> Any {
        switch value {
        case let object as ArchivedObject:
            return object.serial <= serial ? WeakObject(object) : object
        case let array as [Any]:
            return array.map(stored)
        case let dictionary as [AnyHashable: Any]:
            var result: [AnyHashable: Any] = [:]
            for (key, element) in dictionary { result[storedKey(key)] = stored(element) }
            return result
        case let dictionary as [String: Any]:
            return dictionary.mapValues(stored)
        case let set as Set<AnyHashable>:
            return Set(set.map(storedKey))
        case let element as ArchivedElement:
            return ArchivedElement(uid: element.uid, value: stored(element.value))
        default:
            return value
        }
    }

    private func storedKey(_ key: AnyHashable) -> AnyHashable {
        AnyHashable(stored(key.base) as? AnyHashable ?? key)
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
        "<\(className): \(storage.map(\.key).joined(separator: ", "))>"
    }
}

extension ArchivedObject: KeyedArchivable {
    /// Any class: a generic object stands for whatever the archive holds.
    public static var _allowedClasses: [Any.Type] { [NSObject.self] }

    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        PropertyListUID(UInt64(encoder.encodeGenericObject(self)))
    }

    /// Any object decodes as a generic one, whatever its class.
    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> ArchivedObject
    {
        try decoder.decodeGenericObject(uid: decoder.checkedUID(uid))
    }
}
