#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one bridge between Foundation-style `Any` values — what code written against
/// `PropertyListSerialization`, `UserDefaults` or `decodeObject(forKey:)` passes and
/// expects — and ``PropertyListValue``.
///
/// Each case has one answer, whichever layer asks:
///
/// | value | as `Any` |
/// |---|---|
/// | `.string` | `String` |
/// | `.integer` | `Int` (always fits on 64-bit platforms, else `Int64`) |
/// | `.unsignedInteger` | `UInt64` (only above `Int64.max`) |
/// | `.real` | `Double` |
/// | `.float` | `Float`, so a value read from a 4-byte real bridges back to one |
/// | `.bool` | `Bool` |
/// | `.date`, `.data` | `Date`, `Data` |
/// | `.array`, `.dictionary` | `[Any]`, `[String: Any]` |
/// | `.uid` | ``PropertyListUID``, never a bare integer, so it cannot be mistaken for one |
///
/// ```swift
/// let value = try PropertyListValue(bridging: ["name": "Rusty Spork", "value": 42] as [String: Any])
/// let object = value.bridgedObject as? [String: Any]   // ["name": "Rusty Spork", "value": 42]
/// ```
extension PropertyListValue {
    /// The property-list form of a Foundation-style value: strings, every fixed-width
    /// integer type, `Double`, `Float`, `Bool`, `Date`, `Data`, ``PropertyListUID``,
    /// ``PropertyListValue`` itself, and arrays and string-keyed dictionaries of them.
    /// Dictionaries are stored in key order, so equal inputs give equal bytes.
    ///
    /// Corresponds to the check `PropertyListSerialization.propertyList(_:isValidFor:)`
    /// makes before writing.
    /// - Parameters:
    ///   - value: the value to convert; a ``PropertyListValue`` is taken as it is.
    ///   - keyPath: where `value` sits, for the error (`items[2].name`).
    /// - Throws: ``PropertyListError`` `.unsupportedValue` naming the key path of the first
    ///   value that is not a property-list value (a `nil` inside a container included);
    ///   `.limitExceeded` for containers nested deeper than `PropertyListLimits.default.maxDepth`,
    ///   which no reader or writer accepts.
    public init(bridging value: Any, keyPath: String = "") throws(PropertyListError) {
        try self.init(bridging: value, keyPath: keyPath, depth: 0)
    }

    private init(bridging value: Any, keyPath: String, depth: Int) throws(PropertyListError) {
        if depth > PropertyListLimits.default.maxDepth, value is [Any] || value is [String: Any] {
            throw PropertyListError(
                .limitExceeded, "containers nested deeper than \(PropertyListLimits.default.maxDepth)",
                keyPath: keyPath.isEmpty ? nil : keyPath)
        }
        switch value {
        case let value as PropertyListValue: self = value
        case let value as PropertyListDictionary: self = .dictionary(value)
        case let value as PropertyListUID: self = .uid(value)
        case let value as String: self = .string(value)
        case let value as Substring: self = .string(String(value))
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .integer(Int64(value))
        case let value as Int8: self = .integer(Int64(value))
        case let value as Int16: self = .integer(Int64(value))
        case let value as Int32: self = .integer(Int64(value))
        case let value as Int64: self = .integer(value)
        case let value as UInt: self = PropertyListValue(integer: value)
        case let value as UInt8: self = .integer(Int64(value))
        case let value as UInt16: self = .integer(Int64(value))
        case let value as UInt32: self = .integer(Int64(value))
        case let value as UInt64: self = PropertyListValue(integer: value)
        case let value as Double: self = .real(value)
        case let value as Float: self = .float(value)
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        case let value as [String: Any]:
            var dictionary = PropertyListDictionary(minimumCapacity: value.count)
            for (key, element) in value.sorted(by: { $0.key < $1.key }) {
                dictionary[key] = try PropertyListValue(
                    bridging: element, keyPath: keyPath.isEmpty ? key : "\(keyPath).\(key)", depth: depth + 1)
            }
            self = .dictionary(dictionary)
        case let value as [Any]:
            var array: [PropertyListValue] = []
            array.reserveCapacity(value.count)
            for (index, element) in value.enumerated() {
                array.append(
                    try PropertyListValue(bridging: element, keyPath: "\(keyPath)[\(index)]", depth: depth + 1))
            }
            self = .array(array)
        default:
            let isNil = (value as? any OptionalBridging)?.isNil == true
            throw PropertyListError(
                .unsupportedValue,
                isNil
                    ? "nil cannot be stored inside a property list" : "\(type(of: value)) is not a property-list type",
                keyPath: keyPath.isEmpty ? nil : keyPath)
        }
    }

    /// The Foundation-style form of this value, as the table above gives it.
    public var bridgedObject: Any {
        switch self {
        case .string(let string): string
        case .integer(let integer): Int(exactly: integer).map { $0 as Any } ?? integer
        case .unsignedInteger(let integer): integer
        case .real(let real): real
        case .float(let float): float
        case .bool(let bool): bool
        case .date(let date): date
        case .data(let data): data
        case .array(let array): array.map(\.bridgedObject)
        case .dictionary(let dictionary): dictionary.bridgedObject
        case .uid(let uid): uid
        }
    }
}

extension PropertyListDictionary {
    /// The Foundation-style form: every value as ``PropertyListValue/bridgedObject``.
    public var bridgedObject: [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(count)
        for (key, value) in self { result[key] = value.bridgedObject }
        return result
    }
}

/// Lets a `nil` wrapped in `Any` be told apart from other unsupported values.
private protocol OptionalBridging {
    var isNil: Bool { get }
}

extension Optional: OptionalBridging {
    fileprivate var isNil: Bool { self == nil }
}
