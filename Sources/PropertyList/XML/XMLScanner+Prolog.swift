/// What may come before the root element: byte-order mark, XML declaration, DOCTYPE,
/// comments and processing instructions.
extension XMLScanner {
    /// Skips the byte-order mark, the XML declaration, a DOCTYPE, comments and processing
    /// instructions before the first element.
    mutating func skipProlog() throws(PropertyListError) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipWhitespace()
        if matches("<?xml", at: position), position + 5 < bytes.count, Self.isNameEnd(bytes[position + 5]) {
            try readDeclaration()
        }
        var sawDoctype = false
        while true {
            skipWhitespace()
            if matches("<!DOCTYPE", at: position) {
                guard !sawDoctype else { throw error(.syntaxError, "a second DOCTYPE", at: position) }
                sawDoctype = true
                try skipDoctype()
            } else if try !skipCommentOrInstruction() {
                return
            }
        }
    }

    /// Reads `<?xml version="1.0" encoding="UTF-8"?>`; only UTF-8 (and its ASCII subset)
    /// is accepted as the encoding.
    private mutating func readDeclaration() throws(PropertyListError) {
        let start = position
        guard let end = find("?>", from: position + 5) else {
            throw endOfInput("the XML declaration", startedAt: start)
        }
        guard let key = find("encoding", from: position + 5), key < end else {
            position = end + 2
            return
        }
        var cursor = key + 8
        while cursor < end, Self.isWhitespace(bytes[cursor]) || bytes[cursor] == UInt8(ascii: "=") { cursor += 1 }
        guard cursor < end, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") else {
            throw error(.syntaxError, "malformed encoding in the XML declaration", at: key)
        }
        let quote = bytes[cursor]
        let nameStart = cursor + 1
        var nameEnd = nameStart
        while nameEnd < end, bytes[nameEnd] != quote { nameEnd += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd]), as: UTF8.self)
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased()) else {
            throw error(.invalidString, "unsupported encoding \"\(name)\"; only UTF-8 is read", at: nameStart)
        }
        position = end + 2
    }

    /// Skips `<!DOCTYPE name ... [internal subset]>`. Declarations in the subset are
    /// skipped, never interpreted.
    private mutating func skipDoctype() throws(PropertyListError) {
        let start = position
        position += 9
        var inSubset = false
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                guard let close = find(byte, from: position + 1) else {
                    throw endOfInput("the DOCTYPE", startedAt: start)
                }
                position = close + 1
                continue
            case UInt8(ascii: "[") where !inSubset:
                inSubset = true
            case UInt8(ascii: "]") where inSubset:
                inSubset = false
            case UInt8(ascii: "<") where inSubset:
                if try skipCommentOrInstruction() { continue }
                guard let close = findDeclarationEnd(from: position + 1) else {
                    throw endOfInput("the DOCTYPE", startedAt: start)
                }
                position = close + 1
                continue
            case UInt8(ascii: ">") where !inSubset:
                position += 1
                return
            default:
                break
            }
            position += 1
        }
        throw endOfInput("the DOCTYPE", startedAt: start)
    }

    /// The `>` closing a markup declaration such as `<!ENTITY x "...">`, honouring quotes.
    private func findDeclarationEnd(from start: Int) -> Int? {
        var cursor = start
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: ">") { return cursor }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                guard let close = find(byte, from: cursor + 1) else { return nil }
                cursor = close
            }
            cursor += 1
        }
        return nil
    }
}
