/// The JSON grammar over a byte buffer; see ``JSONPropertyListReader`` for the rules.
///
/// Containers are parsed with an explicit stack (open containers in `frames`, their
/// finished children in `values` and `keys`) rather than by recursion, so a deeply
/// nested input ends in `.limitExceeded` however high `maxDepth` is set.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var budget: ReadBudget

    private var frames: [Frame] = []
    private var values: [PropertyListValue] = []
    private var keys: [String] = []

    /// An open array or object: where its children start in `values` and `keys`.
    private struct Frame {
        let isObject: Bool
        let valueStart: Int
        let keyStart: Int
    }

    init(bytes: UnsafeBufferPointer<UInt8>, limits: PropertyListLimits) {
        self.bytes = bytes
        self.budget = ReadBudget(limits)
    }

    mutating func parseDocument() throws(PropertyListError) -> PropertyListValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        nextValue: while true {
            guard var value = try parseValueOrOpenContainer() else { continue }
            // Hand the finished value to its container, closing every container that
            // ends right after it.
            while true {
                guard budget.spendObject() else {
                    throw error(.limitExceeded, "more than \(budget.limits.maxObjectCount) values")
                }
                guard let frame = frames.last else {
                    skipWhitespace()
                    guard position == bytes.count else {
                        throw error(.syntaxError, "unexpected \(describeCurrent()) after the top-level value")
                    }
                    return value
                }
                values.append(value)
                skipWhitespace()
                guard position < bytes.count else {
                    throw error(.truncated, frame.isObject ? "unterminated object" : "unterminated array")
                }
                switch bytes[position] {
                case UInt8(ascii: ","):
                    position += 1
                    if frame.isObject { try parseKey() }
                    continue nextValue
                case UInt8(ascii: "}") where frame.isObject, UInt8(ascii: "]") where !frame.isObject:
                    position += 1
                    value = closeContainer()
                default:
                    throw error(.syntaxError, "expected ',' or '\(frame.isObject ? "}" : "]")', found \(describeCurrent())")
                }
            }
        }
    }

    /// Parses a scalar, or opens a container and returns `nil` so the caller moves on to
    /// its first child. An empty container is returned finished.
    private mutating func parseValueOrOpenContainer() throws(PropertyListError) -> PropertyListValue? {
        skipWhitespace()
        guard position < bytes.count else { throw error(.truncated, "expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            try openContainer(isObject: true)
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return closeContainer()
            }
            try parseKey(afterOpening: true)
            return nil
        case UInt8(ascii: "["):
            try openContainer(isObject: false)
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return closeContainer()
            }
            return nil
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            let start = position
            try expectLiteral("null")
            throw error(.invalidObject, "null has no property-list equivalent", at: start)
        default:
            throw error(.syntaxError, "expected a value, found \(describeCurrent())")
        }
    }

    private mutating func openContainer(isObject: Bool) throws(PropertyListError) {
        guard budget.allowsNesting(below: frames.count) else {
            throw error(.limitExceeded, "containers nested deeper than \(budget.limits.maxDepth)")
        }
        frames.append(Frame(isObject: isObject, valueStart: values.count, keyStart: keys.count))
        position += 1
    }

    private mutating func closeContainer() -> PropertyListValue {
        let frame = frames.removeLast()
        defer {
            values.removeSubrange(frame.valueStart...)
            keys.removeSubrange(frame.keyStart...)
        }
        guard frame.isObject else { return .array(Array(values[frame.valueStart...])) }
        var dictionary = PropertyListDictionary(minimumCapacity: keys.count - frame.keyStart)
        for (key, value) in zip(keys[frame.keyStart...], values[frame.valueStart...]) {
            dictionary.updateValue(value, forKey: key)
        }
        return .dictionary(dictionary)
    }

    /// Reads `"key" :` inside an object.
    private mutating func parseKey(afterOpening: Bool = false) throws(PropertyListError) {
        skipWhitespace()
        guard position < bytes.count else { throw error(.truncated, "unterminated object") }
        guard bytes[position] == UInt8(ascii: "\"") else {
            throw error(.syntaxError, "expected a string key\(afterOpening ? " or '}'" : ""), found \(describeCurrent())")
        }
        let key = try parseString()
        guard budget.spendObject() else {
            throw error(.limitExceeded, "more than \(budget.limits.maxObjectCount) values")
        }
        keys.append(key)
        skipWhitespace()
        guard position < bytes.count else { throw error(.truncated, "unterminated object") }
        guard bytes[position] == UInt8(ascii: ":") else {
            throw error(.syntaxError, "expected ':' after an object key, found \(describeCurrent())")
        }
        position += 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(PropertyListError) {
        let start = position
        for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard position < bytes.count else { throw error(.truncated, "input ends inside '\(literal)'") }
            guard bytes[position] == expected else {
                position = start
                throw error(.syntaxError, "expected a value, found \(describeCurrent())")
            }
            position += 1
        }
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// The byte at `position` as an error message shows it.
    func describeCurrent() -> String {
        guard position < bytes.count else { return "end of input" }
        let byte = bytes[position]
        return (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    func error(_ code: PropertyListError.Code, _ message: String, at offset: Int? = nil) -> PropertyListError {
        TextPosition.error(code, message, at: offset ?? position, in: bytes)
    }
}
