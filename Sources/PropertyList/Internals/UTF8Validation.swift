/// Checks UTF-8 without building a string, eight ASCII bytes at a time where it can.
///
/// `String(validating:as:)` is generic over the encoding and, not being specialised for
/// UTF-8, spends much of a text parser's time in metadata lookups. Readers validate
/// here, then build strings with `String(decoding:as:)`; the XML reader validates its
/// whole input once, so a bad byte anywhere is reported at its exact offset.
enum UTF8Validation {
    /// The offset of the first byte that does not belong to a well-formed sequence
    /// (overlong forms, surrogates and values above U+10FFFF included), or `nil`.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = 0
        while index < count {
            while index &+ 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                index &+= 8
            }
            guard index < count else { return nil }
            let lead = bytes[index]
            if lead < 0x80 {
                index &+= 1
                continue
            }
            // Allowed range of the second byte and length, per the Unicode standard's
            // table of well-formed byte sequences.
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            let length: Int
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return index
            }
            guard index &+ length <= count, (low...high).contains(bytes[index &+ 1]) else { return index }
            for offset in 2..<length where bytes[index &+ offset] & 0xC0 != 0x80 { return index }
            index &+= length
        }
        return nil
    }

    /// Whether `bytes` is well-formed UTF-8.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        firstInvalidOffset(in: bytes) == nil
    }

    /// The string `bytes` spell, or `nil` when they are not well-formed UTF-8.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool = false) -> String? {
        guard isASCII || isValid(bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
