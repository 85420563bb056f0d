/// The OpenStep grammar over UTF-8 bytes; see ``OpenStepPropertyListReader`` for the rules.
/// Containers are parsed with an explicit ``ContainerStack`` rather than by recursion.
struct OpenStepParser: TextParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    var budget: ReadBudget
    /// Text a `.strings` file ended before (see ``OpenStepPropertyListReader``).
    private(set) var warnings: [PropertyListWarning] = []

    private var containers = ContainerStack<Kind>()

    private enum Kind {
        case array, dictionary
        /// The brace-less dictionary of a `.strings` file, closed by the end of input.
        case stringsFile
    }

    init(bytes: UnsafeBufferPointer<UInt8>, position: Int, limits: PropertyListLimits) {
        self.bytes = bytes
        self.position = position
        self.budget = ReadBudget(limits)
    }

    mutating func parseDocument() throws(PropertyListError) -> PropertyListValue {
        let start = position
        guard start < bytes.count else { throw error(.truncated, "input is empty") }
        guard try skipWhitespace() else { return .dictionary([:]) }
        let value = try run(first: nil)
        guard try skipWhitespace() else { return value }
        guard case .string = value else {
            throw error(.syntaxError, "unexpected \(describeCurrent()) after the top-level value")
        }
        // A string followed by more text is the first key of a `.strings` file: start
        // again, reading the whole input as the entries of a dictionary.
        position = start
        budget = ReadBudget(budget.limits)
        _ = try skipWhitespace()
        guard budget.allowsNesting(below: 0) else {
            throw error(.limitExceeded, "containers nested deeper than \(budget.limits.maxDepth)")
        }
        containers.open(.stringsFile, isDictionary: true)
        return try run(first: try parseKey(in: .stringsFile))
    }

    /// Parses values until every container opened since the call has closed, starting
    /// with `first` when a value is already in hand.
    private mutating func run(first: PropertyListValue?) throws(PropertyListError) -> PropertyListValue {
        var pending = first
        nextValue: while true {
            var value: PropertyListValue
            if let inHand = pending {
                value = inHand
                pending = nil
            } else if let parsed = try parseValueOrOpenContainer() {
                value = parsed
            } else {
                continue
            }
            // Hand the finished value to its container, closing every container that
            // ends right after it.
            while true {
                guard budget.spendObject() else {
                    throw error(.limitExceeded, "more than \(budget.limits.maxObjectCount) values")
                }
                guard let frame = containers.innermost else { return value }
                containers.append(value)
                if frame.kind == .array {
                    try expectMore(in: frame.kind)
                    if bytes[position] == UInt8(ascii: ",") {
                        position += 1
                        try expectMore(in: frame.kind)
                        // A trailing comma before `)` is allowed.
                        guard bytes[position] == UInt8(ascii: ")") else { continue nextValue }
                    } else if bytes[position] != UInt8(ascii: ")") {
                        throw error(.syntaxError, "expected ',' or ')' in an array, found \(describeCurrent())")
                    }
                    position += 1
                    value = containers.close()
                    continue
                }
                try expectMore(in: frame.kind)
                guard bytes[position] == UInt8(ascii: ";") else {
                    throw error(.syntaxError, "expected ';' after a dictionary entry, found \(describeCurrent())")
                }
                position += 1
                if try !skipWhitespace() {
                    guard frame.kind == .stringsFile else { throw error(.truncated, "input ends inside a dictionary") }
                    value = containers.close()
                } else if frame.kind == .dictionary, bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    value = containers.close()
                } else if frame.kind == .stringsFile, !Self.canStartKey(bytes[position]) {
                    // CoreFoundation's parsePlistDictContent ends the pairs here.
                    let (line, column) = TextPosition.lineAndColumn(of: position, in: bytes)
                    warnings.append(
                        PropertyListWarning(
                            message:
                                "the text from here on is not a key = value pair: ignored, as Foundation ignores it",
                            offset: position, line: line, column: column))
                    position = bytes.count
                    value = containers.close()
                } else if let shortcut = try parseKey(in: frame.kind) {
                    value = shortcut
                } else {
                    continue nextValue
                }
            }
        }
    }

    /// Parses a scalar, or opens a container and returns `nil` so that the caller moves
    /// on to its first child. An empty container is returned finished.
    private mutating func parseValueOrOpenContainer() throws(PropertyListError) -> PropertyListValue? {
        guard try skipWhitespace() else { throw error(.truncated, "expected a value") }
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "("):
            try openContainer(.array)
            try expectMore(in: .array)
            guard bytes[position] == UInt8(ascii: ")") else { return nil }
            position += 1
            return containers.close()
        case UInt8(ascii: "{"):
            try openContainer(.dictionary)
            try expectMore(in: .dictionary)
            guard bytes[position] == UInt8(ascii: "}") else { return try parseKey(in: .dictionary) }
            position += 1
            return containers.close()
        case UInt8(ascii: "<"):
            return .data(try parseData())
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .string(try parseQuotedString())
        default:
            guard Self.isUnquotedCharacter(byte) else {
                throw error(.syntaxError, "expected a value, found \(describeCurrent())")
            }
            return .string(try parseUnquotedString())
        }
    }

    /// Reads a dictionary key and what follows it: after `=` returns `nil` for the
    /// caller to parse the value; after `;` (the `.strings` shortcut) returns the key
    /// itself as the value, leaving the `;` for the caller.
    private mutating func parseKey(in kind: Kind) throws(PropertyListError) -> PropertyListValue? {
        let byte = bytes[position]
        let key: String
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            key = try parseQuotedString()
        } else if Self.isUnquotedCharacter(byte) {
            key = try parseUnquotedString()
        } else {
            let expected = kind == .dictionary ? "a key or '}'" : "a key"
            throw error(.syntaxError, "expected \(expected), found \(describeCurrent())")
        }
        guard budget.spendObject() else {
            throw error(.limitExceeded, "more than \(budget.limits.maxObjectCount) values")
        }
        containers.appendKey(key)
        try expectMore(in: kind)
        switch bytes[position] {
        case UInt8(ascii: "="):
            position += 1
            return nil
        case UInt8(ascii: ";"):
            guard budget.spendBytes(key.utf8.count) else {
                throw error(.limitExceeded, "strings and data exceed \(budget.limits.maxByteCount) bytes")
            }
            return .string(key)
        default:
            throw error(.syntaxError, "expected '=' or ';' after a key, found \(describeCurrent())")
        }
    }

    /// Whether `byte` can begin a key: a quote or an unquoted string's character.
    private static func canStartKey(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || isUnquotedCharacter(byte)
    }

    private mutating func openContainer(_ kind: Kind) throws(PropertyListError) {
        guard budget.allowsNesting(below: containers.depth) else {
            throw error(.limitExceeded, "containers nested deeper than \(budget.limits.maxDepth)")
        }
        containers.open(kind, isDictionary: kind != .array)
        position += 1
    }

    /// Skips white space and comments, then requires more input inside a container.
    private mutating func expectMore(in kind: Kind) throws(PropertyListError) {
        guard try skipWhitespace() else {
            let container =
                switch kind {
                case .array: "an array"
                case .dictionary: "a dictionary"
                case .stringsFile: "a strings-file entry"
                }
            throw error(.truncated, "input ends inside \(container)")
        }
    }
}
