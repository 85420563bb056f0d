import Foundation

/// ``ArchiveRenderer``'s JSON, compact, one document ending in a newline.
struct ArchiveJSONSink: ArchiveByteSink {
    var rendered = RenderedBytes()
    /// Whether the open JSON container has no member yet, innermost last.
    private var empty: [Bool] = []
    /// Whether each open JSON container holds `[key, value]` pairs.
    private var pairs: [Bool] = []

    mutating func beginTop() {
        open("{", pairs: false)
    }

    mutating func key(_ key: String, depth: Int) {
        separate()
        JSONString.append(Self.escaped(key), into: &rendered.pending)
        rendered.pending.append(UInt8(ascii: ":"))
    }

    mutating func element(_ position: Int, depth: Int) {
        separate()
    }

    mutating func pairKey(depth: Int) {
        separate()
        rendered.pending.append(UInt8(ascii: "["))
    }

    mutating func pairValue(depth: Int) {
        rendered.pending.append(UInt8(ascii: ","))
    }

    mutating func leaf(_ leaf: ArchiveGraph.Leaf) {
        switch leaf {
        case .scalar(.string(let string)): JSONString.append(string, into: &rendered.pending)
        case .scalar(.integer(let integer)): append(String(integer))
        case .scalar(.unsignedInteger(let integer)): append(String(integer))
        case .scalar(.real(let real)): appendReal(real)
        case .scalar(.float(let float)): appendReal(Double(float))
        case .scalar(.bool(let bool)): append(bool ? "true" : "false")
        case .scalar(.data(let data)): wrapped("$data", data.base64EncodedString())
        case .scalar(.date(let date)):
            if let text = try? PropertyListWriter(format: .json, jsonOptions: .init(date: .iso8601)).write(.date(date))
            {
                append("{\"$date\":")
                rendered.pending.append(contentsOf: text)
                append("}")
            } else {
                append("{\"$date\":")
                appendReal(date.timeIntervalSinceReferenceDate)
                append("}")
            }
        case .scalar(let other): wrapped("$value", other.description)  // UIDs and containers never reach here.
        case .uuid(let uuid): wrapped("$uuid", uuid.uuidString)
        case .url(let url): wrapped("$url", url.absoluteString)
        }
    }

    mutating func null() {
        append("null")
    }

    mutating func reference(to container: ArchiveContainer) {
        append("{\"$ref\":\(container.uid ?? 0)}")
    }

    mutating func begin(_ container: ArchiveContainer, depth: Int) {
        let identity = container.number != nil ? container.uid : nil
        switch container.kind {
        case .object(let className, let classChain):
            append("{\"$id\":\(container.uid ?? 0),\"$class\":")
            JSONString.append(className, into: &rendered.pending)
            append(",\"$classes\":[")
            for (position, name) in classChain.enumerated() {
                if position > 0 { rendered.pending.append(UInt8(ascii: ",")) }
                JSONString.append(name, into: &rendered.pending)
            }
            append("]")
            open("", pairs: false, empty: false)
        case .dictionary:
            if let identity {
                append("{\"$id\":\(identity)")
                open("", pairs: false, empty: false)
            } else {
                open("{", pairs: false)
            }
        case .array:
            if let identity { append("{\"$id\":\(identity),\"$array\":") }
            open("[", pairs: false)
        case .set:
            append(identity.map { "{\"$id\":\($0),\"$set\":" } ?? "{\"$set\":")
            open("[", pairs: false)
        case .pairs:
            append(identity.map { "{\"$id\":\($0),\"$entries\":" } ?? "{\"$entries\":")
            open("[", pairs: true)
        }
    }

    mutating func end(_ container: ArchiveContainer, depth: Int) {
        empty.removeLast()
        pairs.removeLast()
        switch container.kind {
        case .object, .dictionary: append("}")
        case .array: append(container.number != nil ? "]}" : "]")
        case .set, .pairs: append("]}")
        }
    }

    mutating func endItem(depth: Int) {
        if pairs.last == true { rendered.pending.append(UInt8(ascii: "]")) }
    }

    mutating func endTop() {
        append("}\n")
    }

    private mutating func open(_ opening: String, pairs isPairs: Bool, empty isEmpty: Bool = true) {
        append(opening)
        empty.append(isEmpty)
        pairs.append(isPairs)
    }

    /// A comma unless this is the container's first member.
    private mutating func separate() {
        if empty[empty.count - 1] {
            empty[empty.count - 1] = false
        } else {
            rendered.pending.append(UInt8(ascii: ","))
        }
    }

    private mutating func wrapped(_ key: String, _ value: String) {
        append("{\"\(key)\":")
        JSONString.append(value, into: &rendered.pending)
        append("}")
    }

    private mutating func appendReal(_ real: Double) {
        if real.isFinite {
            append(real.description)
        } else {
            wrapped("$real", real.isNaN ? "nan" : real < 0 ? "-inf" : "inf")
        }
    }

    private mutating func append(_ text: String) {
        rendered.pending.append(contentsOf: text.utf8)
    }

    /// Keys that begin with `$` get another, so they cannot be taken for `$id`, `$ref`…
    static func escaped(_ key: String) -> String {
        key.hasPrefix("$") ? "$" + key : key
    }
}
