/// What the JSON and OpenStep parsers share: a position in UTF-8 text, the budget
/// their values are spent from, and how their errors say where.
protocol TextParser {
    var bytes: UnsafeBufferPointer<UInt8> { get }
    var position: Int { get set }
    var budget: ReadBudget { get set }
}

extension TextParser {
    /// The byte at `position` as an error message shows it.
    func describeCurrent() -> String {
        guard position < bytes.count else { return "end of input" }
        let byte = bytes[position]
        return (0x21..<0x7F).contains(byte)
            ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    func error(_ code: PropertyListError.Code, _ message: String, at offset: Int? = nil) -> PropertyListError {
        TextPosition.error(code, message, at: offset ?? position, in: bytes)
    }

    /// The quoted string whose content starts at `position`, when no escape comes
    /// before its closing `quote`: most strings, validated in place, with `position`
    /// left after the quote. `nil` at the first backslash or the end of input, with
    /// `position` there. `start` is the opening quote's offset, for errors.
    mutating func plainString(
        closedBy quote: UInt8, openedAt start: Int, refusingControlCharacters: Bool
    ) throws(PropertyListError) -> String? {
        let contentStart = position
        var highBits: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            highBits |= byte
            if byte == quote {
                let content = UnsafeBufferPointer(rebasing: bytes[contentStart..<position])
                let string = try budget.string(content, isASCII: highBits < 0x80, startingAt: start, in: bytes)
                position += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { return nil }
            if refusingControlCharacters, byte < 0x20 {
                throw error(.syntaxError, "unescaped control character in a string")
            }
            position += 1
        }
        return nil
    }

    /// The value of a hexadecimal digit, either case; `nil` for any other byte.
    func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
