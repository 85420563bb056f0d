extension JSONParser {
    /// Reads a string from its opening quote, leaving `position` after the closing one.
    mutating func parseString() throws(PropertyListError) -> String {
        let start = position
        position += 1
        let contentStart = position
        if let string = try plainString(closedBy: UInt8(ascii: "\""), openedAt: start, refusingControlCharacters: true)
        {
            return string
        }
        var buffer = Array(bytes[contentStart..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                let string = try buffer.withUnsafeBufferPointer { (buffer) throws(PropertyListError) in
                    try budget.string(buffer, startingAt: start, in: bytes)
                }
                position += 1
                return string
            case UInt8(ascii: "\\"):
                try appendEscape(to: &buffer)
            case ..<0x20:
                throw error(.syntaxError, "unescaped control character in a string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw error(.truncated, "unterminated string", at: start)
    }

    /// Decodes the escape at `position` (a backslash) and appends its UTF-8 bytes.
    private mutating func appendEscape(to buffer: inout [UInt8]) throws(PropertyListError) {
        let escapeStart = position
        position += 1
        guard position < bytes.count else { throw error(.truncated, "unterminated string") }
        let simple: UInt8
        switch bytes[position] {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            position += 1
            let unit = try parseHexUnit()
            let scalar: Unicode.Scalar?
            if UTF16.isLeadSurrogate(unit) {
                // A lead surrogate is only valid followed by `\u` and a trail surrogate.
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else {
                    throw error(.invalidString, "unpaired surrogate \\u\(String(unit, radix: 16))", at: escapeStart)
                }
                position += 2
                let trail = try parseHexUnit()
                guard UTF16.isTrailSurrogate(trail) else {
                    throw error(.invalidString, "unpaired surrogate \\u\(String(unit, radix: 16))", at: escapeStart)
                }
                scalar = Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00))
            } else {
                scalar = Unicode.Scalar(unit)
            }
            guard let scalar else {
                throw error(.invalidString, "unpaired surrogate \\u\(String(unit, radix: 16))", at: escapeStart)
            }
            UTF8.encode(scalar) { buffer.append($0) }
            return
        default:
            throw error(.syntaxError, "invalid escape \\\(describeCurrent()) in a string", at: escapeStart)
        }
        buffer.append(simple)
        position += 1
    }

    /// Reads the four hex digits of a `\u` escape.
    private mutating func parseHexUnit() throws(PropertyListError) -> UInt16 {
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard position < bytes.count else { throw error(.truncated, "unterminated \\u escape") }
            guard let digit = hexValue(bytes[position]) else {
                throw error(.syntaxError, "\\u must be followed by four hex digits, found \(describeCurrent())")
            }
            unit = unit << 4 | UInt16(digit)
            position += 1
        }
        return unit
    }

    /// Reads a number; integers that fit 64 bits stay exact, the rest become `Double`.
    mutating func parseNumber() throws(PropertyListError) -> PropertyListValue {
        let start = position
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let integerStart = position
        try skipDigits()
        if bytes[integerStart] == UInt8(ascii: "0"), position - integerStart > 1 {
            throw error(.syntaxError, "numbers may not have leading zeros", at: integerStart)
        }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            try skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            try skipDigits()
        }
        if isInteger,
            let integer = Self.integer(
                UnsafeBufferPointer(rebasing: bytes[integerStart..<position]), negative: negative)
        {
            return integer
        }
        // Swift's parser rounds correctly; the grammar was checked above, so it cannot
        // meet `inf`, `nan` or hex forms.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let real = Double(text), real.isFinite else {
            throw error(.invalidObject, "number \(text.prefix(40)) is too large for a property list", at: start)
        }
        return .real(real)
    }

    /// One or more decimal digits.
    private mutating func skipDigits() throws(PropertyListError) {
        let start = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        guard position > start else {
            if position == bytes.count { throw error(.truncated, "input ends inside a number") }
            throw error(.syntaxError, "expected a digit, found \(describeCurrent())")
        }
    }

    /// The integer the digits spell, or `nil` when it lies outside `Int64.min...UInt64.max`.
    private static func integer(_ digits: UnsafeBufferPointer<UInt8>, negative: Bool) -> PropertyListValue? {
        var magnitude: UInt64 = 0
        for digit in digits {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit &- UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
        }
        guard negative else {
            return magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .unsignedInteger(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
        return .integer(Int64(truncatingIfNeeded: 0 &- magnitude))
    }
}
