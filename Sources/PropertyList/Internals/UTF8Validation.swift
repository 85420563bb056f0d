/// Checks UTF-8 without building a string.
///
/// `String(validating:as:)` is generic over the encoding and, not being specialised for
/// UTF-8, spends much of a text parser's time in metadata lookups. Readers validate
/// non-ASCII runs here and then build the string with `String(decoding:as:)`.
enum UTF8Validation {
    /// Whether `bytes` is well-formed UTF-8: no stray continuation bytes, overlong forms,
    /// surrogates, values above U+10FFFF or sequences cut short.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The length of the sequence and the range its second byte must fall in,
            // which is what rules out overlong forms, surrogates and values past U+10FFFF.
            let length: Int
            let second: ClosedRange<UInt8>
            switch lead {
            case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
            case 0xE0: (length, second) = (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
            case 0xED: (length, second) = (3, 0x80...0x9F)
            case 0xF0: (length, second) = (4, 0x90...0xBF)
            case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
            case 0xF4: (length, second) = (4, 0x80...0x8F)
            default: return false
            }
            guard count - index >= length, second.contains(bytes[index + 1]) else { return false }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
                return false
            }
            index += length
        }
        return true
    }

    /// The string `bytes` spell, or `nil` when they are not well-formed UTF-8.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool = false) -> String? {
        guard isASCII || isValid(bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
