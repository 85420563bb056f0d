/// The JSON grammar over a byte buffer; see ``JSONPropertyListReader`` for the rules.
/// Containers are parsed with an explicit ``ContainerStack`` rather than by recursion.
struct JSONParser: TextParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var budget: ReadBudget

    /// Open arrays and objects; the kind is whether the container is an object.
    private var containers = ContainerStack<Bool>()

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
                guard let frame = containers.innermost else {
                    skipWhitespace()
                    guard position == bytes.count else {
                        throw error(.syntaxError, "unexpected \(describeCurrent()) after the top-level value")
                    }
                    return value
                }
                containers.append(value)
                skipWhitespace()
                guard position < bytes.count else {
                    throw error(.truncated, frame.isDictionary ? "unterminated object" : "unterminated array")
                }
                switch bytes[position] {
                case UInt8(ascii: ","):
                    position += 1
                    if frame.isDictionary { try parseKey() }
                    continue nextValue
                case UInt8(ascii: "}") where frame.isDictionary, UInt8(ascii: "]") where !frame.isDictionary:
                    position += 1
                    value = containers.close()
                default:
                    throw error(
                        .syntaxError, "expected ',' or '\(frame.isDictionary ? "}" : "]")', found \(describeCurrent())")
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
                return containers.close()
            }
            try parseKey(afterOpening: true)
            return nil
        case UInt8(ascii: "["):
            try openContainer(isObject: false)
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return containers.close()
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
        guard budget.allowsNesting(below: containers.depth) else {
            throw error(.limitExceeded, "containers nested deeper than \(budget.limits.maxDepth)")
        }
        containers.open(isObject, isDictionary: isObject)
        position += 1
    }

    /// Reads `"key" :` inside an object.
    private mutating func parseKey(afterOpening: Bool = false) throws(PropertyListError) {
        skipWhitespace()
        guard position < bytes.count else { throw error(.truncated, "unterminated object") }
        guard bytes[position] == UInt8(ascii: "\"") else {
            throw error(
                .syntaxError, "expected a string key\(afterOpening ? " or '}'" : ""), found \(describeCurrent())")
        }
        let key = try parseString()
        guard budget.spendObject() else {
            throw error(.limitExceeded, "more than \(budget.limits.maxObjectCount) values")
        }
        containers.appendKey(key)
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
}
