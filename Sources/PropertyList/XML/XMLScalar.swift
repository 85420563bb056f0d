/// Parsers for the text of `<integer>` and `<real>`, as Core Foundation reads it.
enum XMLScalar {
    enum IntegerError: Error {
        case malformed
        /// Outside `Int64.min ... UInt64.max`.
        case outOfRange
    }

    /// Reads a decimal integer, or a hexadecimal one after `0x`, with an optional sign
    /// (`-0x10` is -16, as Core Foundation and `plistlib` read it). White space around
    /// the number is ignored.
    /// - Returns: ``PropertyListValue/integer(_:)``, or ``PropertyListValue/unsignedInteger(_:)``
    ///   above `Int64.max`.
    static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Result<PropertyListValue, IntegerError> {
        Result { () throws(IntegerError) in try parseInteger(text) }
    }

    private static func parseInteger(_ text: UnsafeBufferPointer<UInt8>) throws(IntegerError) -> PropertyListValue {
        var digits = trimmed(text)
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        var radix: UInt32 = 10
        if digits.count > 2, digits.first == UInt8(ascii: "0"),
            digits[digits.startIndex + 1] | 0x20 == UInt8(ascii: "x")
        {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty else { throw .malformed }
        var magnitude: UInt64 = 0
        for byte in digits {
            guard let digit = digitValue(byte, radix: radix) else { throw .malformed }
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: UInt64(radix))
            let (sum, carry) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { throw .outOfRange }
            magnitude = sum
        }
        guard negative else { return PropertyListValue(integer: magnitude) }
        guard magnitude <= Int64.min.magnitude else { throw .outOfRange }
        return .integer(magnitude == Int64.min.magnitude ? .min : -Int64(magnitude))
    }

    /// Reads a decimal real with optional fraction and exponent, or one of the names Core
    /// Foundation accepts in any case: `nan`, `inf`, `infinity`, each infinity signed or not.
    /// - Returns: `nil` when malformed. Values beyond the range of `Double` read as infinity.
    static func real(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        let number = trimmed(text)
        if let special = specialReal(number) { return special }
        var cursor = number.startIndex
        func skipDigits() -> Int {
            let start = cursor
            while cursor < number.endIndex, number[cursor] &- UInt8(ascii: "0") < 10 { cursor += 1 }
            return cursor - start
        }
        if cursor < number.endIndex, number[cursor] == UInt8(ascii: "-") || number[cursor] == UInt8(ascii: "+") {
            cursor += 1
        }
        var mantissaDigits = skipDigits()
        if cursor < number.endIndex, number[cursor] == UInt8(ascii: ".") {
            cursor += 1
            mantissaDigits += skipDigits()
        }
        guard mantissaDigits > 0 else { return nil }
        if cursor < number.endIndex, number[cursor] | 0x20 == UInt8(ascii: "e") {
            cursor += 1
            if cursor < number.endIndex, number[cursor] == UInt8(ascii: "-") || number[cursor] == UInt8(ascii: "+") {
                cursor += 1
            }
            guard skipDigits() > 0 else { return nil }
        }
        guard cursor == number.endIndex else { return nil }
        // The grammar is checked above, so the standard library's correctly rounded
        // conversion sees nothing but a plain decimal number.
        return Double(String(decoding: UnsafeBufferPointer(rebasing: number), as: UTF8.self))
    }

    private static func specialReal(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        guard (3...9).contains(text.count) else { return nil }
        var name = text[...]
        var sign = 1.0
        if let first = name.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            if first == UInt8(ascii: "-") { sign = -1 }
            name = name.dropFirst()
        }
        let lowered = name.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        switch String(decoding: lowered, as: UTF8.self) {
        case "nan" where sign > 0: return .nan
        case "inf", "infinity": return sign * .infinity
        default: return nil
        }
    }

    /// The value of a digit in base 10 or 16; `nil` for any other byte.
    static func digitValue(_ byte: UInt8, radix: UInt32) -> UInt32? {
        let decimal = byte &- UInt8(ascii: "0")
        if decimal < 10 { return UInt32(decimal) }
        guard radix == 16 else { return nil }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? UInt32(letter) + 10 : nil
    }

    /// `text` without XML white space at either end.
    static func trimmed(_ text: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var start = text.startIndex
        var end = text.endIndex
        while start < end, XMLScanner.isWhitespace(text[start]) { start += 1 }
        while end > start, XMLScanner.isWhitespace(text[end - 1]) { end -= 1 }
        return text[start..<end]
    }
}
