import Foundation

/// ``ArchiveRenderer``'s JSON, compact, one document ending in a newline.
struct ArchiveJSONSink: ArchiveByteSink {
    var rendered = RenderedBytes()
    /// Whether the open JSON container has no member yet, innermost last.
    private var empty: [Bool] = []
    /// Whether each open JSON container holds `[key, value]` pairs.
    private var pairs: [Bool] = []
    /// `,"$class":…,"$classes":[…]` by class entry, written once per class.
    private var classMembers: [ObjectIdentifier: [UInt8]] = [:]

    mutating func beginTop() {
        open("{", pairs: false)
    }

    mutating func key(_ key: String, depth: Int) {
        separate()
        if key.utf8.first == UInt8(ascii: "$") {
            JSONString.append(Self.escaped(key), into: &rendered.pending)
        } else {
            JSONString.append(key, into: &rendered.pending)
        }
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
        case .asciiText(let text): JSONString.append(utf8: text, into: &rendered.pending)
        case .scalar(.integer(let integer)): JSONString.appendDecimal(integer, into: &rendered.pending)
        case .scalar(.unsignedInteger(let integer)): JSONString.appendDecimal(integer, into: &rendered.pending)
        case .scalar(.real(let real)): appendReal(real)
        case .scalar(.float(let float)): appendReal(Double(float))
        case .scalar(.bool(let bool)): append(bool ? "true" : "false")
        case .scalar(.data(let data)): wrapped("$data", data.base64EncodedString())
        case .scalar(.date(let date)):
            append("{\"$date\":")
            let seconds = date.timeIntervalSinceReferenceDate
            if ISO8601Date.fourDigitYears.contains(seconds) {
                rendered.pending.append(UInt8(ascii: "\""))
                // Within four-digit years the formatter cannot fail.
                try? ISO8601Date.format(seconds, into: &rendered.pending)
                rendered.pending.append(UInt8(ascii: "\""))
            } else {
                appendReal(seconds)
            }
            append("}")
        case .scalar(let other): wrapped("$value", other.description)  // UIDs and containers never reach here.
        case .uuid(let uuid): wrapped("$uuid", uuid.uuidString)
        case .url(let url): wrapped("$url", url.absoluteString)
        }
    }

    mutating func null() {
        append("null")
    }

    mutating func reference(to container: ArchiveContainer) {
        append("{\"$ref\":")
        appendDecimal(container.uid ?? 0)
        append("}")
    }

    mutating func begin(_ container: ArchiveContainer, depth: Int) {
        let identity = container.number != nil ? container.uid : nil
        switch container.kind {
        case .object(let archivedClass):
            append("{\"$id\":")
            appendDecimal(container.uid ?? 0)
            rendered.pending.append(contentsOf: members(of: archivedClass))
            open("", pairs: false, empty: false)
        case .dictionary:
            if let identity {
                append("{\"$id\":")
                appendDecimal(identity)
                open("", pairs: false, empty: false)
            } else {
                open("{", pairs: false)
            }
        case .array:
            if let identity { wrapperOpening("$array", identity: identity) }
            open("[", pairs: false)
        case .set:
            wrapperOpening("$set", identity: identity)
            open("[", pairs: false)
        case .pairs:
            wrapperOpening("$entries", identity: identity)
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

    /// `{"$id":UID,"KEY":`, or `{"KEY":` without an identity.
    private mutating func wrapperOpening(_ key: StaticString, identity: Int?) {
        append("{")
        if let identity {
            append("\"$id\":")
            appendDecimal(identity)
            append(",")
        }
        append("\"")
        append(key)
        append("\":")
    }

    /// The members every object of `archivedClass` begins with after its `$id`.
    private mutating func members(of archivedClass: ArchivedClass) -> [UInt8] {
        if let known = classMembers[ObjectIdentifier(archivedClass)] { return known }
        var members = Array(",\"$class\":".utf8)
        JSONString.append(archivedClass.name, into: &members)
        members.append(contentsOf: ",\"$classes\":[".utf8)
        for (position, name) in archivedClass.chain.enumerated() {
            if position > 0 { members.append(UInt8(ascii: ",")) }
            JSONString.append(name, into: &members)
        }
        members.append(UInt8(ascii: "]"))
        classMembers[ObjectIdentifier(archivedClass)] = members
        return members
    }

    private mutating func open(_ opening: StaticString, pairs isPairs: Bool, empty isEmpty: Bool = true) {
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

    private mutating func wrapped(_ key: StaticString, _ value: String) {
        append("{\"")
        append(key)
        append("\":")
        JSONString.append(value, into: &rendered.pending)
        append("}")
    }

    private mutating func appendReal(_ real: Double) {
        if real.isFinite {
            rendered.pending.append(contentsOf: real.description.utf8)
        } else {
            wrapped("$real", real.isNaN ? "nan" : real < 0 ? "-inf" : "inf")
        }
    }

    private mutating func append(_ text: StaticString) {
        rendered.pending.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func appendDecimal(_ value: Int) {
        JSONString.appendDecimal(Int64(value), into: &rendered.pending)
    }

    /// Keys that begin with `$` get another, so they cannot be taken for `$id`, `$ref`…
    static func escaped(_ key: String) -> String {
        key.hasPrefix("$") ? "$" + key : key
    }
}
