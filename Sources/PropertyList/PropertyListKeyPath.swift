/// A path to a value inside a property list, written as `plutil` takes it: components
/// separated by `.`, a dot inside a key escaped as `\.`, and a numeric component
/// indexing an array.
///
/// Corresponds to the key paths of `plutil -extract`, `-insert`, `-replace` and `-remove`.
///
/// ```swift
/// let path = PropertyListKeyPath("items.3.name")
/// print(path.components)  // ["items", "3", "name"]
/// ```
public struct PropertyListKeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var components: [String]

    public init(components: [String]) {
        self.components = components
    }

    /// Splits `text` at every `.` that is not preceded by a backslash; `\.` stands for
    /// a dot inside a key and any other backslash for itself. An empty text is one
    /// empty component, which names no value, as in `plutil`.
    public init(_ text: String) {
        let bytes = Array(text.utf8)
        var components: [String] = []
        var current: [UInt8] = []
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ".") {
                current.append(UInt8(ascii: "."))
                position += 2
                continue
            }
            if byte == UInt8(ascii: ".") {
                components.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(byte)
            }
            position += 1
        }
        components.append(String(decoding: current, as: UTF8.self))
        self.components = components
    }

    public init(stringLiteral text: String) {
        self.init(text)
    }

    /// The path as `plutil` takes it, dots inside keys escaped.
    public var description: String {
        components.map { $0.replacing(".", with: "\\.") }.joined(separator: ".")
    }
}
