import Foundation

/// ``ArchiveRenderer``'s text: the `plutil -p` style of ``PropertyListValue/description``.
struct ArchiveTextSink: ArchiveByteSink {
    var rendered = RenderedBytes()

    mutating func beginTop() {}

    mutating func key(_ key: String, depth: Int) {
        indent(depth)
        rendered.pending.append(UInt8(ascii: "\""))
        for byte in key.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { rendered.pending.append(UInt8(ascii: "\\")) }
            rendered.pending.append(byte)
        }
        append("\" => ")
    }

    mutating func element(_ position: Int, depth: Int) {
        indent(depth)
        append(String(position))
        append(" => ")
    }

    mutating func pairKey(depth: Int) {
        indent(depth)
    }

    mutating func pairValue(depth: Int) {
        append(" => ")
    }

    mutating func leaf(_ leaf: ArchiveGraph.Leaf) {
        switch leaf {
        case .scalar(let value): append(value.description)
        case .asciiText(let text): append(PropertyListValue.string(String(decoding: text, as: UTF8.self)).description)
        case .uuid(let uuid): append("UUID(\(uuid.uuidString))")
        case .url(let url): append("URL(\(url.absoluteString))")
        }
    }

    mutating func null() {
        append("nil")
    }

    mutating func reference(to container: ArchiveContainer) {
        append(Self.label(container))
        append(" (see above)")
    }

    mutating func begin(_ container: ArchiveContainer, depth: Int) {
        switch container.kind {
        case .object:
            append(Self.label(container))
            append(" {\n")
        case .array, .set, .dictionary, .pairs:
            if let number = container.number { append("#\(number) ") }
            if case .set = container.kind { append("set ") }
            append(container.opening)
            rendered.pending.append(0x0A)
        }
    }

    mutating func end(_ container: ArchiveContainer, depth: Int) {
        indent(depth)
        append(container.closing)
    }

    mutating func endItem(depth: Int) {
        rendered.pending.append(0x0A)
    }

    mutating func endTop() {}

    /// `<Class #n>` for an object, `#n` for a collection.
    private static func label(_ container: ArchiveContainer) -> String {
        let number = container.number.map { "#\($0)" } ?? "#?"
        if case .object(let archivedClass) = container.kind { return "<\(archivedClass.name) \(number)>" }
        return number
    }

    /// Two spaces a level up to ``ArchiveRenderer/maxIndentation`` levels; deeper lines
    /// say their depth instead.
    private mutating func indent(_ depth: Int) {
        rendered.pending.append(contentsOf: Self.padding[min(depth, ArchiveRenderer.maxIndentation)])
        if depth > ArchiveRenderer.maxIndentation { append("(\(depth)) ") }
    }

    private static let padding = (0...ArchiveRenderer.maxIndentation).map {
        [UInt8](repeating: UInt8(ascii: " "), count: $0 * 2)
    }

    private mutating func append(_ text: String) {
        rendered.pending.append(contentsOf: text.utf8)
    }
}

extension ArchiveContainer {
    var opening: String {
        switch kind {
        case .object, .dictionary, .pairs: "{"
        case .array, .set: "["
        }
    }

    var closing: String {
        switch kind {
        case .object, .dictionary, .pairs: "}"
        case .array, .set: "]"
        }
    }
}
