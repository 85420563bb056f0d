import Foundation

// Numbers and booleans: inline in the object's dictionary when encoded under a key,
// an `NSNumber` entry of their own inside collections.

/// The shared behaviour of the numeric conformances.
protocol ArchivableNumber: KeyedArchivable {
    var archivedValue: ArchiveFieldValue { get }
    init?(archived value: PropertyListValue)
}

extension ArchivableNumber {
    public static var _allowedClasses: [Any.Type] { [NSNumber.self] }

    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        PropertyListUID(UInt64(encoder.encodeNumber(archivedValue)))
    }

    public func _encodeField(to encoder: KeyedEncoder, forKey key: String) {
        encoder.appendField(key, archivedValue)
    }

    /// An `NSNumber` entry; never another reference, so a UID cannot lead to itself.
    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> Self
    {
        try number(from: decoder.scalarEntry(uid: decoder.checkedUID(uid)))
    }

    public static func _decodeField(_ value: PropertyListValue, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> Self
    {
        if case .uid(let uid) = value { return try _decodeObject(at: uid, from: decoder) }
        return try number(from: value)
    }

    private static func number(from value: PropertyListValue) throws(KeyedArchiveError) -> Self {
        guard let number = Self(archived: value) else {
            throw KeyedArchiveError(.typeMismatch, "expected \(Self.self), found \(value.archiveDescription)")
        }
        return number
    }
}

extension ArchivableNumber where Self: FixedWidthInteger {
    var archivedValue: ArchiveFieldValue {
        if let signed = Int64(exactly: self) { return .integer(signed) }
        return .unsignedInteger(UInt64(self))
    }

    /// Integers must fit; integral reals are accepted, as `NSNumber` converts them.
    init?(archived value: PropertyListValue) {
        switch value {
        case .integer(let integer): self.init(exactly: integer)
        case .unsignedInteger(let integer): self.init(exactly: integer)
        case .real(let real): self.init(exactly: real)
        case .float(let float): self.init(exactly: float)
        case .bool(let bool): self = bool ? 1 : 0
        default: return nil
        }
    }
}

extension Int: ArchivableNumber {}
extension Int8: ArchivableNumber {}
extension Int16: ArchivableNumber {}
extension Int32: ArchivableNumber {}
extension Int64: ArchivableNumber {}
extension UInt: ArchivableNumber {}
extension UInt8: ArchivableNumber {}
extension UInt16: ArchivableNumber {}
extension UInt32: ArchivableNumber {}
extension UInt64: ArchivableNumber {}

extension Double: ArchivableNumber {
    var archivedValue: ArchiveFieldValue { .real(self) }

    init?(archived value: PropertyListValue) {
        switch value {
        case .real(let real): self = real
        case .float(let float): self = Double(float)
        case .integer(let integer): self = Double(integer)
        case .unsignedInteger(let integer): self = Double(integer)
        default: return nil
        }
    }
}

extension Float: ArchivableNumber {
    var archivedValue: ArchiveFieldValue { .float(self) }

    init?(archived value: PropertyListValue) {
        guard let double = Double(archived: value) else { return nil }
        self = Float(double)
    }
}

extension Bool: ArchivableNumber {
    var archivedValue: ArchiveFieldValue { .bool(self) }

    /// Integers count as booleans (non-zero is `true`), as `NSNumber.boolValue` does.
    init?(archived value: PropertyListValue) {
        switch value {
        case .bool(let bool): self = bool
        case .integer(let integer): self = integer != 0
        case .unsignedInteger: self = true
        default: return nil
        }
    }
}
