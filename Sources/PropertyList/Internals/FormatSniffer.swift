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
            // Quoted or bare strings, `(` arrays and `.strings` files.
            return .openStep
        }
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
