#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OpenStepParser {
    /// Skips white space and comments; `false` when the input ends.
    mutating func skipWhitespace() throws(PropertyListError) -> Bool {
        while position < bytes.count {
            switch bytes[position] {
            case 0x09...0x0D, 0x20:
                position += 1
            case 0xE2 where isSeparator(at: position):
                position += 3
            case UInt8(ascii: "/"):
                guard position + 1 < bytes.count else { return true }
                switch bytes[position + 1] {
                case UInt8(ascii: "/"): try skipComment(block: false)
                case UInt8(ascii: "*"): try skipComment(block: true)
                default: return true
                }
            default:
                return true
            }
        }
        return false
    }

    /// U+2028 LINE SEPARATOR or U+2029 PARAGRAPH SEPARATOR, which CoreFoundation counts
    /// as white space.
    private func isSeparator(at offset: Int) -> Bool {
        offset + 2 < bytes.count && bytes[offset] == 0xE2 && bytes[offset + 1] == 0x80
            && (bytes[offset + 2] == 0xA8 || bytes[offset + 2] == 0xA9)
    }

    /// Skips a `//` comment up to its line end, or a `/* */` comment past its end.
    /// - Throws: `.truncated` for a `/*` comment that is never closed: what follows it was
    ///   cut off, and reading the rest as nothing would turn a damaged file into an
    ///   empty dictionary.
    private mutating func skipComment(block: Bool) throws(PropertyListError) {
        let start = position
        position += 2
        var isASCII = true
        var closed = !block
        while position < bytes.count {
            let byte = bytes[position]
            if block {
                if byte == UInt8(ascii: "*"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "/") {
                    position += 2
                    closed = true
                    break
                }
            } else if byte == 0x0A || byte == 0x0D || isSeparator(at: position) {
                break
            }
            isASCII = isASCII && byte < 0x80
            position += 1
        }
        guard closed else { throw error(.truncated, "comment is never closed with */", at: start) }
        guard isASCII || UTF8Validation.isValid(UnsafeBufferPointer(rebasing: bytes[start..<position])) else {
            throw error(.invalidString, "comment is not valid UTF-8", at: start)
        }
    }

    static func isUnquotedCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"),
            UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    mutating func parseUnquotedString() throws(PropertyListError) -> String {
        let start = position
        while position < bytes.count, Self.isUnquotedCharacter(bytes[position]) { position += 1 }
        return try budget.string(
            UnsafeBufferPointer(rebasing: bytes[start..<position]), isASCII: true, startingAt: start, in: bytes)
    }

    /// Reads a string quoted with `"` or `'`, leaving `position` after the closing quote.
    mutating func parseQuotedString() throws(PropertyListError) -> String {
        let start = position
        let quote = bytes[position]
        position += 1
        let contentStart = position
        if let string = try plainString(closedBy: quote, openedAt: start, refusingControlCharacters: false) {
            return string
        }
        var unescaped = UnescapedText(bytes: Array(bytes[contentStart..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == quote {
                unescaped.finish()
                return try unescaped.bytes.withUnsafeBufferPointer { (text) throws(PropertyListError) in
                    try budget.string(text, startingAt: start, in: bytes)
                }
            }
            guard byte == UInt8(ascii: "\\") else {
                unescaped.append(byte)
                continue
            }
            guard position < bytes.count else { break }
            let escaped = bytes[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                // Up to three octal digits; CoreFoundation keeps only the low eight bits.
                var code = escaped &- UInt8(ascii: "0")
                for _ in 0..<2 {
                    guard position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 8 else { break }
                    code = code &<< 3 &+ (bytes[position] &- UInt8(ascii: "0"))
                    position += 1
                }
                unescaped.append(NeXTSTEPLatin.scalar(for: code))
            case UInt8(ascii: "U"):
                // Up to four hex digits, fewer when a non-hex character comes first.
                var unit: UInt16 = 0
                for _ in 0..<4 {
                    guard position < bytes.count, let digit = hexValue(bytes[position]) else { break }
                    unit = unit << 4 | UInt16(digit)
                    position += 1
                }
                unescaped.append(utf16: unit)
            case UInt8(ascii: "a"): unescaped.append(0x07)
            case UInt8(ascii: "b"): unescaped.append(0x08)
            case UInt8(ascii: "f"): unescaped.append(0x0C)
            case UInt8(ascii: "n"): unescaped.append(0x0A)
            case UInt8(ascii: "r"): unescaped.append(0x0D)
            case UInt8(ascii: "t"): unescaped.append(0x09)
            case UInt8(ascii: "v"): unescaped.append(0x0B)
            default:
                // Any other character stands for itself: `\\`, `\"`, `\'`, a newline.
                unescaped.append(escaped)
            }
        }
        throw error(.truncated, "unterminated quoted string", at: start)
    }

    /// Reads `<hex>` data, leaving `position` after the `>`.
    mutating func parseData() throws(PropertyListError) -> Data {
        let start = position
        position += 1
        var data: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                guard budget.spendBytes(data.count) else {
                    throw error(
                        .limitExceeded, "strings and data exceed \(budget.limits.maxByteCount) bytes", at: start)
                }
                return Data(data)
            }
            if let high = hexValue(byte) {
                position += 1
                guard position < bytes.count else { break }
                guard let low = hexValue(bytes[position]) else {
                    throw error(.syntaxError, "data has an odd number of hex digits in a group")
                }
                data.append(high << 4 | low)
                position += 1
            } else if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D {
                position += 1
            } else if isSeparator(at: position) {
                position += 3
            } else {
                throw error(.syntaxError, "expected hex digits or '>' in data, found \(describeCurrent())")
            }
        }
        throw error(.truncated, "unterminated data", at: start)
    }
}

/// The UTF-8 of a quoted string being unescaped. `\U` escapes are UTF-16 units: a lead
/// surrogate waits for a trail surrogate, and either one left alone becomes U+FFFD.
private struct UnescapedText {
    var bytes: [UInt8]
    private var pendingLead: UInt16?

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func append(_ byte: UInt8) {
        finish()
        bytes.append(byte)
    }

    mutating func append(_ scalar: Unicode.Scalar) {
        finish()
        UTF8.encode(scalar) { bytes.append($0) }
    }

    mutating func append(utf16 unit: UInt16) {
        if UTF16.isTrailSurrogate(unit), let lead = pendingLead {
            pendingLead = nil
            let value = 0x10000 + (UInt32(lead - 0xD800) << 10) + UInt32(unit - 0xDC00)
            append(Unicode.Scalar(value) ?? "\u{FFFD}")
        } else if UTF16.isLeadSurrogate(unit) {
            finish()
            pendingLead = unit
        } else {
            append(Unicode.Scalar(unit) ?? "\u{FFFD}")
        }
    }

    /// Ends a lead surrogate left waiting.
    mutating func finish() {
        guard pendingLead != nil else { return }
        pendingLead = nil
        UTF8.encode("\u{FFFD}") { bytes.append($0) }
    }
}
