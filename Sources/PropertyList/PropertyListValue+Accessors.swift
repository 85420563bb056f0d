#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension PropertyListValue {
    public var stringValue: String? {
        if case .string(let s) = self { s } else { nil }
    }

    /// The integer as `Int64`, or `nil` when it is not an integer or lies above `Int64.max`.
    public var int64Value: Int64? {
        if case .integer(let i) = self { i } else { nil }
    }

    /// The integer as `UInt64`, or `nil` when it is not an integer or is negative.
    public var uint64Value: UInt64? {
        switch self {
        case .integer(let i): UInt64(exactly: i)
        case .unsignedInteger(let u): u
        default: nil
        }
    }

    /// Either kind of real, widened to `Double`.
    public var doubleValue: Double? {
        switch self {
        case .real(let d): d
        case .float(let f): Double(f)
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { b } else { nil }
    }

    public var dateValue: Date? {
        if case .date(let d) = self { d } else { nil }
    }

    public var dataValue: Data? {
        if case .data(let d) = self { d } else { nil }
    }

    public var arrayValue: [PropertyListValue]? {
        if case .array(let a) = self { a } else { nil }
    }

    public var dictionaryValue: PropertyListDictionary? {
        if case .dictionary(let d) = self { d } else { nil }
    }

    public var uidValue: PropertyListUID? {
        if case .uid(let u) = self { u } else { nil }
    }

    /// The value under `key` when this is a dictionary; `nil` otherwise.
    public subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[key]
    }
}

extension PropertyListValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }

    /// Later duplicates of a key replace earlier ones.
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        var dictionary = PropertyListDictionary(minimumCapacity: elements.count)
        for (key, value) in elements { dictionary[key] = value }
        self = .dictionary(dictionary)
    }
}
