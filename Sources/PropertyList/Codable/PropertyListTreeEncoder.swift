#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns an `Encodable` value into a ``PropertyListValue`` tree: the shape
/// `PropertyListEncoder` gives it (keyed containers as dictionaries, unkeyed ones as
/// arrays, `Date` and `Data` as themselves, `nil` as the string `"$null"`). Shared by
/// the archiver (`encodeEncodable`) and user defaults (`Codable` values).
package enum PropertyListTreeEncoder {
    /// How `nil` is stored, as `PropertyListEncoder` stores it.
    package static let null = "$null"

    /// - Throws: whatever the value's `encode(to:)` throws; callers map it to their error.
    package static func encode<Value: Encodable>(_ value: Value) throws -> PropertyListValue {
        let root = EncodingNode()
        try root.encode(value, codingPath: [])
        return root.value
    }
}

/// A value under construction; containers hold nodes their children fill in later.
final class EncodingNode {
    private enum Content {
        case empty
        case value(PropertyListValue)
        case array([EncodingNode])
        case dictionary([(String, EncodingNode)])
    }

    private var content = Content.empty

    var value: PropertyListValue {
        switch content {
        case .empty: return .dictionary([:])
        case .value(let value): return value
        case .array(let nodes): return .array(nodes.map(\.value))
        case .dictionary(let pairs): return .dictionary(PropertyListDictionary(pairs.map { ($0.0, $0.1.value) }))
        }
    }

    func set(_ value: PropertyListValue) {
        content = .value(value)
    }

    func encode<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws {
        switch value {
        case let date as Date: set(.date(date))
        case let data as Data: set(.data(data))
        default: try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }

    func child(forKey key: String) -> EncodingNode {
        let child = EncodingNode()
        if case .dictionary(var pairs) = content {
            content = .empty
            pairs.append((key, child))
            content = .dictionary(pairs)
        } else {
            content = .dictionary([(key, child)])
        }
        return child
    }

    func appendChild() -> EncodingNode {
        let child = EncodingNode()
        if case .array(var nodes) = content {
            content = .empty
            nodes.append(child)
            content = .array(nodes)
        } else {
            content = .array([child])
        }
        return child
    }

    var childCount: Int {
        switch content {
        case .array(let nodes): nodes.count
        case .dictionary(let pairs): pairs.count
        default: 0
        }
    }

    func makeDictionary() {
        if case .dictionary = content { return }
        content = .dictionary([])
    }

    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }
}

private struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeDictionary()
        return KeyedEncodingContainer(KeyedNodeContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    private func child(_ key: Key) -> EncodingNode { node.child(forKey: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { child(key).set(.string(PropertyListTreeEncoder.null)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { child(key).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { child(key).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { child(key).set(.real(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { child(key).set(.float(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { child(key).set(PropertyListValue(integer: value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { child(key).set(.integer(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { child(key).set(PropertyListValue(integer: value)) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try child(key).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: child(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.child(forKey: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: child(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int { node.childCount }

    mutating func encodeNil() throws { node.appendChild().set(.string(PropertyListTreeEncoder.null)) }
    mutating func encode(_ value: Bool) throws { node.appendChild().set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.appendChild().set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.appendChild().set(.real(value)) }
    mutating func encode(_ value: Float) throws { node.appendChild().set(.float(value)) }
    mutating func encode(_ value: Int) throws { node.appendChild().set(PropertyListValue(integer: value)) }
    mutating func encode(_ value: Int64) throws { node.appendChild().set(.integer(value)) }
    mutating func encode(_ value: UInt64) throws { node.appendChild().set(PropertyListValue(integer: value)) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try node.appendChild().encode(value, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        NodeEncoder(node: node.appendChild(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.appendChild(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.appendChild(), codingPath: codingPath)
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.string(PropertyListTreeEncoder.null)) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(.real(value)) }
    mutating func encode(_ value: Float) throws { node.set(.float(value)) }
    mutating func encode(_ value: Int) throws { node.set(PropertyListValue(integer: value)) }
    mutating func encode(_ value: Int64) throws { node.set(.integer(value)) }
    mutating func encode(_ value: UInt64) throws { node.set(PropertyListValue(integer: value)) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try node.encode(value, codingPath: codingPath)
    }
}
