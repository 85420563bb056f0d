import Foundation
import PropertyList

/// Conversions between Foundation-style `Any` values (what code written against
/// `UserDefaults` passes and expects) and ``PropertyListValue``.
enum ValueBridge {
    /// The property-list form of `value`.
    /// - Throws: ``DefaultsError`` `.notPropertyList` naming the path of the first value
    ///   that is not one.
    static func propertyList(from value: Any, keyPath: String) throws(DefaultsError) -> PropertyListValue {
        switch value {
        case let value as PropertyListValue: return value
        case let value as PropertyListDictionary: return .dictionary(value)
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Bool: return .bool(value)
        case let value as Int: return .integer(Int64(value))
        case let value as Int8: return .integer(Int64(value))
        case let value as Int16: return .integer(Int64(value))
        case let value as Int32: return .integer(Int64(value))
        case let value as Int64: return .integer(value)
        case let value as UInt: return PropertyListValue(integer: value)
        case let value as UInt8: return .integer(Int64(value))
        case let value as UInt16: return .integer(Int64(value))
        case let value as UInt32: return .integer(Int64(value))
        case let value as UInt64: return PropertyListValue(integer: value)
        case let value as Double: return .real(value)
        case let value as Float: return .float(value)
        case let value as Date: return .date(value)
        case let value as Data: return .data(value)
        case let value as URL: return .string(storedString(for: value))
        case let value as [String: Any]:
            var dictionary = PropertyListDictionary(minimumCapacity: value.count)
            for (key, element) in value.sorted(by: { $0.key < $1.key }) {
                dictionary[key] = try propertyList(from: element, keyPath: "\(keyPath).\(key)")
            }
            return .dictionary(dictionary)
        case let value as [Any]:
            var array: [PropertyListValue] = []
            array.reserveCapacity(value.count)
            for (index, element) in value.enumerated() {
                array.append(try propertyList(from: element, keyPath: "\(keyPath)[\(index)]"))
            }
            return .array(array)
        default:
            let isNil = (value as? any OptionalProtocol)?.isNil == true
            throw DefaultsError(
                .notPropertyList,
                isNil ? "nil cannot be stored inside a value" : "\(type(of: value)) is not a property-list type",
                keyPath: keyPath)
        }
    }

    /// The Foundation-style form of `value`: `String`, `Int`, `Double`, `Bool`, `Date`,
    /// `Data`, `[Any]`, `[String: Any]` (and `UInt64` above `Int.max`).
    static func object(from value: PropertyListValue) -> Any {
        switch value {
        case .string(let string): string
        case .integer(let integer): Int(exactly: integer).map { $0 as Any } ?? integer
        case .unsignedInteger(let integer): integer
        case .real(let real): real
        case .float(let float): Double(float)
        case .bool(let bool): bool
        case .date(let date): date
        case .data(let data): data
        case .array(let array): array.map(object(from:))
        case .dictionary(let dictionary): dictionaryObject(from: dictionary)
        case .uid(let uid): uid.value
        }
    }

    static func dictionaryObject(from dictionary: PropertyListDictionary) -> [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(dictionary.count)
        for (key, value) in dictionary { result[key] = object(from: value) }
        return result
    }

    static func dictionary(from values: [String: Any], keyPath: String = "") throws(DefaultsError) -> PropertyListDictionary {
        var dictionary = PropertyListDictionary(minimumCapacity: values.count)
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            dictionary[key] = try propertyList(from: value, keyPath: keyPath.isEmpty ? key : "\(keyPath).\(key)")
        }
        return dictionary
    }

    /// URLs are stored as strings: file URLs as their path (what `url(forKey:)` turns
    /// back into a file URL, as Apple's does for paths), others as absolute strings.
    static func storedString(for url: URL) -> String {
        url.isFileURL ? url.path : url.absoluteString
    }
}

/// Lets a nil wrapped in `Any` be told apart from other unsupported values.
private protocol OptionalProtocol {
    var isNil: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNil: Bool { self == nil }
}
