#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Rebuilds a `Decodable` value from a ``PropertyListValue`` tree shaped as
/// ``PropertyListTreeEncoder`` (or Foundation's `PropertyListEncoder`) shapes it.
///
/// Trees from an archive share repeated subtrees, so the decoder counts every value it
/// visits against ``PropertyListLimits/maxObjectCount``: a small archive that fans out
/// cannot make decoding take exponential time.
package enum PropertyListTreeDecoder {
    /// - Throws: the `DecodingError` or the value's own error, or ``PropertyListError``
    ///   `.limitExceeded`; callers map them to their error.
    package static func decode<Value: Decodable>(
        _ type: Value.Type, from tree: PropertyListValue, limits: PropertyListLimits
    ) throws -> Value {
        let budget = DecodingBudget(limit: limits.maxObjectCount)
        return try NodeDecoder(value: tree, codingPath: [], budget: budget).decodeValue(type)
    }
}

/// Values visited so far, shared by every container of one decode.
final class DecodingBudget {
    let limit: Int
    var used = 0

    init(limit: Int) { self.limit = limit }

    func spend() throws {
        used += 1
        guard used <= limit else {
            throw PropertyListError(.limitExceeded, "more than \(limit) values visited while decoding")
        }
    }
}

private struct NodeDecoder: Decoder {
    let value: PropertyListValue
    let codingPath: [any CodingKey]
    let budget: DecodingBudget
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let dictionary) = value else {
            throw mismatch([String: Any].self)
        }
        return KeyedDecodingContainer(
            KeyedNodeContainer(dictionary: dictionary, codingPath: codingPath, budget: budget))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([Any].self) }
        return UnkeyedNodeContainer(elements: elements, codingPath: codingPath, budget: budget)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleNodeContainer(decoder: self)
    }

    func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(
            type, .init(codingPath: codingPath, debugDescription: "found a value of type \(value.kindName)"))
    }

    var isNull: Bool {
        if case .string(PropertyListTreeEncoder.null) = value { true } else { false }
    }

    func decodeValue<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try budget.spend()
        switch value {
        case .date(let date) where type == Date.self: return date as! Value
        case .data(let data) where type == Data.self: return data as! Value
        default: return try Value(from: self)
        }
    }

    func decodeString() throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self) }
        return string
    }

    func decodeBool() throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self) }
        return bool
    }

    func decodeNumber<Number: BinaryFloatingPoint>(_ type: Number.Type) throws -> Number {
        guard let double = value.doubleValue ?? value.int64Value.map(Double.init) else { throw mismatch(type) }
        return Number(double)
    }

    func decodeInteger<Number: FixedWidthInteger>(_ type: Number.Type) throws -> Number {
        let number: Number? =
            switch value {
            case .integer(let integer): Number(exactly: integer)
            case .unsignedInteger(let integer): Number(exactly: integer)
            case .real(let real): Number(exactly: real)
            default: nil
            }
        guard let number else { throw mismatch(type) }
        return number
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let dictionary: PropertyListDictionary
    let codingPath: [any CodingKey]
    let budget: DecodingBudget

    var allKeys: [Key] { dictionary.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { dictionary[key.stringValue] != nil }

    private func child(_ key: Key) throws -> NodeDecoder {
        guard let value = dictionary[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
        }
        return NodeDecoder(value: value, codingPath: codingPath + [key], budget: budget)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decodeNumber(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decodeNumber(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decodeInteger(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decodeInteger(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decodeInteger(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decodeInteger(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decodeInteger(type) }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try child(key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(value: dictionary["super"] ?? .dictionary([:]), codingPath: codingPath, budget: budget)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct UnkeyedNodeContainer: UnkeyedDecodingContainer {
    let elements: [PropertyListValue]
    let codingPath: [any CodingKey]
    let budget: DecodingBudget
    var currentIndex = 0

    init(elements: [PropertyListValue], codingPath: [any CodingKey], budget: DecodingBudget) {
        self.elements = elements
        self.codingPath = codingPath
        self.budget = budget
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> NodeDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "unkeyed container is at its end"))
        }
        defer { currentIndex += 1 }
        return NodeDecoder(value: elements[currentIndex], codingPath: codingPath, budget: budget)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .string(PropertyListTreeEncoder.null) = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try next().decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decodeNumber(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decodeNumber(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decodeInteger(type) }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try next().decodeValue(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleNodeContainer: SingleValueDecodingContainer {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeNumber(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeNumber(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try decoder.decodeValue(type)
    }
}
