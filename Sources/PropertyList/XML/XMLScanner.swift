/// The byte-level tokenizer under ``XMLPropertyListReader``: markup, tags and character
/// data of a UTF-8 XML document, without building anything.
///
/// It understands the subset of XML that property lists use. Comments and processing
/// instructions are skipped wherever they appear; a DOCTYPE is skipped whole, internal
/// subset included. Entity declarations in that subset are never expanded: only the five
/// predefined entities and character references are, so a reference to any other entity
/// is an error and "billion laughs" style inputs cost nothing.
struct XMLScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Offset of the next byte to read.
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// An open or close tag.
    struct Tag {
        var element: XMLElementName
        /// Offset of the tag's `<`.
        var start: Int
        var isClose: Bool
        /// `<name/>`.
        var isSelfClosing: Bool
    }

    /// Character data read from between two tags.
    enum Text {
        /// A run of the input that needed no decoding.
        case span(Range<Int>)
        /// Text rebuilt because it held references, CDATA sections or comments.
        case decoded([UInt8])
    }

    func error(_ code: PropertyListError.Code, _ message: String, at offset: Int) -> PropertyListError {
        TextPosition.error(code, message, at: offset, in: bytes)
    }

    func endOfInput(_ what: String, startedAt start: Int) -> PropertyListError {
        error(.truncated, "input ends inside \(what)", at: start)
    }

    // MARK: - Markup between elements

    /// Skips white space, comments and processing instructions up to the next tag.
    /// - Returns: `false` at the end of the input.
    /// - Throws: `.syntaxError` for text, a CDATA section or a declaration found instead.
    mutating func skipToTag() throws(PropertyListError) -> Bool {
        while true {
            skipWhitespace()
            guard position < bytes.count else { return false }
            guard bytes[position] == UInt8(ascii: "<") else {
                throw error(.syntaxError, "text where an element was expected", at: position)
            }
            guard position + 1 < bytes.count else { return true }
            let next = bytes[position + 1]
            guard next == UInt8(ascii: "!") || next == UInt8(ascii: "?") else { return true }
            if try skipCommentOrInstruction() { continue }
            throw error(.syntaxError, "a CDATA section or declaration where an element was expected", at: position)
        }
    }

    /// Skips a comment or processing instruction starting at `position`.
    /// - Returns: whether there was one.
    mutating func skipCommentOrInstruction() throws(PropertyListError) -> Bool {
        if matches("<!--", at: position) {
            try skipComment()
            return true
        }
        if matches("<?", at: position) {
            try skipInstruction()
            return true
        }
        return false
    }

    private mutating func skipComment() throws(PropertyListError) {
        let start = position
        guard let end = find("-->", from: position + 4) else { throw endOfInput("a comment", startedAt: start) }
        position = end + 3
    }

    private mutating func skipInstruction() throws(PropertyListError) {
        let start = position
        guard let end = find("?>", from: position + 2) else {
            throw endOfInput("a processing instruction", startedAt: start)
        }
        let target = position + 2
        var nameEnd = target
        while nameEnd < end, !Self.isNameEnd(bytes[nameEnd]) { nameEnd += 1 }
        if nameEnd - target == 3,
            (bytes[target] | 0x20, bytes[target + 1] | 0x20, bytes[target + 2] | 0x20)
                == (UInt8(ascii: "x"), UInt8(ascii: "m"), UInt8(ascii: "l"))
        {
            throw error(.syntaxError, "an XML declaration after the start of the document", at: start)
        }
        position = end + 2
    }

    // MARK: - Tags

    /// Reads the tag starting at `position` (which holds `<`), attributes included.
    mutating func readTag() throws(PropertyListError) -> Tag {
        let start = position
        position += 1
        let isClose = position < bytes.count && bytes[position] == UInt8(ascii: "/")
        if isClose { position += 1 }
        let nameStart = position
        var packed: UInt64 = 0
        while position < bytes.count {
            let byte = bytes[position]
            if Self.isNameEnd(byte) { break }
            let length = position &- nameStart
            if length < XMLElementName.maximumLength { packed |= UInt64(byte) &<< (length &* 8) }
            position &+= 1
        }
        guard position < bytes.count else { throw endOfInput("a tag", startedAt: start) }
        guard position > nameStart else { throw error(.syntaxError, "a tag without a name", at: start) }
        let element = XMLElementName(length: position - nameStart, bytes: packed)
        if element == .unknown {
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[nameStart..<position]), as: UTF8.self)
            // An unknown close tag can only be a mismatched one.
            throw isClose
                ? error(.syntaxError, "close tag </\(name)> matches no open tag", at: start)
                : error(.invalidObject, "unknown tag <\(name)>", at: start)
        }
        if isClose {
            skipWhitespace()
            guard position < bytes.count else { throw endOfInput("a tag", startedAt: start) }
            guard bytes[position] == UInt8(ascii: ">") else {
                throw error(.syntaxError, "malformed close tag </\(element.name)>", at: start)
            }
            position += 1
            return Tag(element: element, start: start, isClose: true, isSelfClosing: false)
        }
        let isSelfClosing = try skipAttributes(tagStart: start)
        return Tag(element: element, start: start, isClose: false, isSelfClosing: isSelfClosing)
    }

    /// Skips `name="value"` pairs up to the end of an open tag.
    /// - Returns: whether the tag was empty (`/>`).
    private mutating func skipAttributes(tagStart: Int) throws(PropertyListError) -> Bool {
        while true {
            let hadSpace = skipWhitespace()
            guard position < bytes.count else { throw endOfInput("a tag", startedAt: tagStart) }
            switch bytes[position] {
            case UInt8(ascii: ">"):
                position += 1
                return false
            case UInt8(ascii: "/"):
                guard position + 1 < bytes.count else { throw endOfInput("a tag", startedAt: tagStart) }
                guard bytes[position + 1] == UInt8(ascii: ">") else {
                    throw error(.syntaxError, "'/' inside a tag", at: position)
                }
                position += 2
                return true
            default:
                guard hadSpace else { throw error(.syntaxError, "malformed tag", at: position) }
                try skipAttribute(tagStart: tagStart)
            }
        }
    }

    private mutating func skipAttribute(tagStart: Int) throws(PropertyListError) {
        let nameStart = position
        while position < bytes.count, !Self.isNameEnd(bytes[position]), bytes[position] != UInt8(ascii: "=") {
            position += 1
        }
        let nameEnd = position
        skipWhitespace()
        guard position < bytes.count else { throw endOfInput("a tag", startedAt: tagStart) }
        guard nameEnd > nameStart, bytes[position] == UInt8(ascii: "=") else {
            throw error(.syntaxError, "malformed attribute", at: nameStart)
        }
        position += 1
        skipWhitespace()
        guard position < bytes.count else { throw endOfInput("a tag", startedAt: tagStart) }
        let quote = bytes[position]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw error(.syntaxError, "attribute value without quotes", at: position)
        }
        position += 1
        while position < bytes.count, bytes[position] != quote {
            guard bytes[position] != UInt8(ascii: "<") else {
                throw error(.syntaxError, "'<' inside an attribute value", at: position)
            }
            position += 1
        }
        guard position < bytes.count else { throw endOfInput("a tag", startedAt: tagStart) }
        position += 1
    }

    /// Reads `</name>` and checks that it closes `element`.
    mutating func readCloseTag(of element: XMLElementName, tagStart: Int) throws(PropertyListError) {
        // Fast path: `</name>` exactly as expected.
        let length = Int(truncatingIfNeeded: element.rawValue &>> 56)
        let end = position + 2 + length
        if end < bytes.count, bytes[position] == UInt8(ascii: "<"), bytes[position + 1] == UInt8(ascii: "/"),
            bytes[end] == UInt8(ascii: ">")
        {
            var same = true
            for index in 0..<length
            where bytes[position + 2 + index] != UInt8(truncatingIfNeeded: element.rawValue &>> (index &* 8)) {
                same = false
                break
            }
            if same {
                position = end + 1
                return
            }
        }
        guard position < bytes.count else { throw endOfInput("<\(element.name)>", startedAt: tagStart) }
        let tag = try readTag()
        guard tag.isClose, tag.element == element else {
            throw error(.syntaxError, "<\(element.name)> closed by </\(tag.element.name)>", at: tag.start)
        }
    }

    // MARK: - Primitives

    /// Skips XML white space.
    /// - Returns: whether there was any.
    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = position
        while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
        return position > start
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Bytes that end a tag or attribute name: white space, `/`, `<`, `>` and `?`, all
    /// below 64 and so tested with one mask.
    static func isNameEnd(_ byte: UInt8) -> Bool {
        byte < 64 && (0xD000_8001_0000_2600 as UInt64) >> byte & 1 != 0
    }

    func matches(_ literal: StaticString, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset >= 0, offset + count <= bytes.count else { return false }
        let pattern = literal.utf8Start
        for index in 0..<count where bytes[offset + index] != pattern[index] { return false }
        return true
    }

    func find(_ literal: StaticString, from start: Int) -> Int? {
        let first = literal.utf8Start.pointee
        var cursor = start
        while let candidate = find(first, from: cursor) {
            if matches(literal, at: candidate) { return candidate }
            cursor = candidate + 1
        }
        return nil
    }

    func find(_ byte: UInt8, from start: Int) -> Int? {
        var cursor = start
        while cursor < bytes.count {
            if bytes[cursor] == byte { return cursor }
            cursor += 1
        }
        return nil
    }
}
