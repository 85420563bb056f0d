/// The one way Keepsake writes a JSON string, and an integer, for every JSON it writes:
/// the property-list JSON writer and `keepsake unarchive`'s rendering, which therefore
/// never disagree.
package enum JSONString {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `string` in quotes: `"` and `\` escaped, the control characters JSON
    /// names by letter as `\b`, `\t`, `\n`, `\f`, `\r`, the other ones below 0x20 as
    /// `\u00XX`. Everything else, `/`, DEL and non-ASCII included, is written as UTF-8,
    /// as RFC 8259 allows.
    package static func append(_ string: String, into output: inout [UInt8]) {
        string.withUTF8Bytes { append(utf8: UnsafeRawBufferPointer($0), into: &output) }
    }

    /// Appends the UTF-8 `text` in quotes, escaped as ``append(_:into:)`` says: in runs
    /// between the bytes that need escaping, looking at eight bytes at a time where none
    /// of them does.
    package static func append(utf8 text: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        guard let start = text.baseAddress else {
            output.append(UInt8(ascii: "\""))
            return
        }
        let count = text.count
        var runStart = 0
        var index = 0
        while index < count {
            if count - index >= 8, !needsEscape(start.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            output.append(contentsOf: UnsafeRawBufferPointer(start: start + runStart, count: index - runStart))
            appendEscape(of: byte, into: &output)
            index += 1
            runStart = index
        }
        output.append(contentsOf: UnsafeRawBufferPointer(start: start + runStart, count: count - runStart))
        output.append(UInt8(ascii: "\""))
    }

    /// Appends the decimal digits of `value`.
    package static func appendDecimal(_ value: UInt64, into output: inout [UInt8]) {
        // At most 20 digits, written from the last into a buffer on the stack and
        // appended at once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = digits.count
            var remaining = value
            repeat {
                position -= 1
                digits[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
            } while remaining > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position...]))
        }
    }

    /// Appends `value` in decimal, with a `-` when negative.
    package static func appendDecimal(_ value: Int64, into output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        appendDecimal(value.magnitude, into: &output)
    }

    private static func appendEscape(of byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), byte])
        case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        default:
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    /// Whether any of the eight bytes of `word` is `"`, `\` or below 0x20. A byte equal
    /// to `c` is zero after XOR with `c`; `(x - 0x01…01) & ~x & 0x80…80` is not zero
    /// exactly when some byte of `x` is zero, and `(x - 0x20…20) & ~x & 0x80…80` exactly
    /// when some byte is below 0x20 (bytes of 0x80 and above have their top bit set in
    /// `x`, so `~x` clears them).
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func holdsZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highBits != 0 }
        let control = (word &- 0x2020_2020_2020_2020) & ~word & highBits != 0
        return control || holdsZeroByte(word ^ 0x2222_2222_2222_2222) || holdsZeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C)
    }
}
