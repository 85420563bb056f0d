import AppSandbox
import Foundation
import PropertyList

/// A property list opened to read parts of it. A binary file is read piece by piece,
/// so answering one key path reads a few pages of it; any other format, and standard
/// input, is read whole.
enum OpenedPropertyList {
    case binary(BinaryPropertyList)
    case tree(PropertyListValue)

    static func open(_ path: String) throws -> OpenedPropertyList {
        if let file = try PropertyListInput.binaryFile(path) { return .binary(try BinaryPropertyList(reading: file)) }
        return try open(bytes: PropertyListInput.bytes(path))
    }

    private static func open(bytes: [UInt8]) throws -> OpenedPropertyList {
        if bytes.starts(with: "bplist".utf8) { return .binary(try BinaryPropertyList(bytes: bytes)) }
        return .tree(try PropertyListReader().read(bytes))
    }

    /// The kind of the value at `keyPath`, or `nil` when there is none.
    func kind(at keyPath: PropertyListKeyPath) throws -> PropertyListValue.Kind? {
        switch self {
        case .binary(let plist): try plist.objectIndex(at: keyPath).map { try plist.kind(ofObject: $0) }
        case .tree(let value): value.value(at: keyPath)?.kind
        }
    }

    /// The whole value at `keyPath`, or `nil` when there is none.
    func value(at keyPath: PropertyListKeyPath) throws -> PropertyListValue? {
        switch self {
        case .binary(let plist): try plist.value(at: keyPath)
        case .tree(let value): value.value(at: keyPath)
        }
    }

    /// The value at `keyPath` as `plutil -extract … raw` prints it, or `nil` when there
    /// is none. A container prints its count or its keys, so it is not built.
    func rawText(at keyPath: PropertyListKeyPath) throws -> String? {
        guard case .binary(let plist) = self else { return try value(at: keyPath).map(PlutilText.raw) }
        guard let index = try plist.objectIndex(at: keyPath) else { return nil }
        if let elements = try plist.elements(ofArray: index) { return String(elements.count) }
        guard let entries = try plist.entries(ofDictionary: index) else {
            return try PlutilText.raw(plist.value(at: index))
        }
        // Each key object is decoded once: entries that share one share its text.
        var keys: [Int: String] = [:]
        for key in entries.keys where keys[key] == nil {
            guard case .string(let text) = try plist.value(at: key) else {
                throw PropertyListError(.invalidObject, "dictionary key (object \(key)) is not a string")
            }
            keys[key] = text
        }
        return PlutilText.keyList(Array(keys.values))
    }
}
