/// Recognises a plist format from its first significant bytes.
struct FormatSniffer {
    let bytes: UnsafeBufferPointer<UInt8>

    var format: PropertyListFormat? {
        if bytes.starts(with: Array("bplist".utf8)) { return .binary }
        var position = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        position = skipWhitespace(from: position)
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "<"):
            return looksLikeOpenStepData(from: position + 1) ? .openStep : .xml
        case UInt8(ascii: "["):
            return .json
        case UInt8(ascii: "{"):
            return looksLikeJSONObject(from: position + 1) ? .json : .openStep
        default:
            // A document that is one JSON string, number or literal is JSON; other quoted
            // or bare strings, `(` arrays and `.strings` files are OpenStep.
            return isJSONScalarDocument(from: position) ? .json : .openStep
        }
    }

    /// Whether the bytes from `start` are one JSON scalar and nothing but white space:
    /// a string whose escapes are all JSON's (`\u00e9`; OpenStep's `\U00E9` or octal
    /// escapes keep it OpenStep), a number, `true`, `false` or `null`.
    private func isJSONScalarDocument(from start: Int) -> Bool {
        var position = start
        switch bytes[position] {
        case UInt8(ascii: "\""):
            position += 1
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                if bytes[position] == UInt8(ascii: "\\") {
                    position += 1
                    guard position < bytes.count, Array("\"\\/bfnrtu".utf8).contains(bytes[position]) else {
                        return false
                    }
                }
                position += 1
            }
            guard position < bytes.count else { return false }
            position += 1
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard let end = endOfJSONNumber(from: position) else { return false }
            position = end
        default:
            guard
                let literal = ["true", "false", "null"].first(where: { literal in
                    bytes[position...].starts(with: literal.utf8)
                })
            else { return false }
            position += literal.utf8.count
        }
        return skipWhitespace(from: position) == bytes.count
    }

    /// Where a number in JSON's grammar (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`)
    /// starting at `start` ends, or `nil` when none starts there; so `1.2.3`, a version
    /// string, stays OpenStep.
    private func endOfJSONNumber(from start: Int) -> Int? {
        var position = start
        func digits() -> Int {
            let first = position
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
            return position - first
        }
        func skip(_ characters: String) -> Bool {
            guard position < bytes.count, characters.utf8.contains(bytes[position]) else { return false }
            position += 1
            return true
        }
        _ = skip("-")
        if skip("0") {
            guard digits() == 0 else { return nil }
        } else if digits() == 0 {
            return nil
        }
        if skip("."), digits() == 0 { return nil }
        if skip("eE") {
            _ = skip("+-")
            if digits() == 0 { return nil }
        }
        return position
    }

    private func skipWhitespace(from start: Int) -> Int {
        var position = start
        while position < bytes.count, isWhitespace(bytes[position]) { position += 1 }
        return position
    }

    private func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `<` followed by hex digits and white space up to `>` is OpenStep data.
    private func looksLikeOpenStepData(from start: Int) -> Bool {
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") { return true }
            let isHex = (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
            guard isHex || isWhitespace(byte) else { return false }
            position += 1
        }
        return false
    }

    /// `{}` or `{"key":` is JSON; `{"key" =` and `{key =` are OpenStep.
    private func looksLikeJSONObject(from start: Int) -> Bool {
        var position = skipWhitespace(from: start)
        guard position < bytes.count else { return false }
        if bytes[position] == UInt8(ascii: "}") { return true }
        guard bytes[position] == UInt8(ascii: "\"") else { return false }
        position += 1
        while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
            position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
        }
        position = skipWhitespace(from: position + 1)
        return position < bytes.count && bytes[position] == UInt8(ascii: ":")
    }
}
