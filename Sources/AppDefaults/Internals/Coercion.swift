import Foundation
import PropertyList

/// Apple's coercions between stored values and the typed accessors, as
/// `UserDefaults` applies them: numbers convert among themselves, strings are read the
/// way `NSString`'s `integerValue`, `doubleValue` and `boolValue` read them.
enum Coercion {
    static func integer(_ value: PropertyListValue) -> Int? {
        switch value {
        case .integer(let integer): Int(clamping: integer)
        case .unsignedInteger(let integer): Int(clamping: integer)
        case .real(let real): int(fromReal: real)
        case .float(let float): int(fromReal: Double(float))
        case .bool(let bool): bool ? 1 : 0
        case .string(let string): leadingInteger(string)
        default: nil
        }
    }

    static func double(_ value: PropertyListValue) -> Double? {
        switch value {
        case .integer(let integer): Double(integer)
        case .unsignedInteger(let integer): Double(integer)
        case .real(let real): real
        case .float(let float): Double(float)
        case .bool(let bool): bool ? 1 : 0
        case .string(let string): leadingDouble(string)
        default: nil
        }
    }

    static func bool(_ value: PropertyListValue) -> Bool? {
        switch value {
        case .bool(let bool): bool
        case .integer(let integer): integer != 0
        case .unsignedInteger(let integer): integer != 0
        case .real(let real): real != 0
        case .float(let float): float != 0
        case .string(let string): boolValue(string)
        default: nil
        }
    }

    /// Strings as they are; numbers as `NSNumber.stringValue` spells them.
    static func string(_ value: PropertyListValue) -> String? {
        switch value {
        case .string(let string): string
        case .integer(let integer): String(integer)
        case .unsignedInteger(let integer): String(integer)
        case .real(let real): realString(real)
        case .float(let float): realString(Double(float))
        case .bool(let bool): bool ? "1" : "0"
        default: nil
        }
    }

    private static func realString(_ real: Double) -> String {
        if real.rounded() == real, abs(real) < 1e15 { return String(Int64(real)) }
        return String(real)
    }

    private static func int(fromReal real: Double) -> Int? {
        guard real.isFinite else { return real.isNaN ? 0 : (real > 0 ? .max : .min) }
        return Int(exactly: real.rounded(.towardZero)) ?? (real > 0 ? .max : .min)
    }

    /// `NSString.integerValue`: leading whitespace, an optional sign, then decimal
    /// digits; anything after them is ignored; 0 when there are none. Saturates.
    static func leadingInteger(_ string: String) -> Int {
        var bytes = Substring(string).utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var result = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { break }
            let digit = Int(byte - 0x30)
            let (shifted, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return negative ? .min : .max }
            result = next
        }
        return result
    }

    /// `NSString.doubleValue`: the longest leading decimal number (sign, digits, point,
    /// digits, exponent) after whitespace; 0 when there is none.
    static func leadingDouble(_ string: String) -> Double {
        let bytes = Array(Substring(string).utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        var i = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
        var digits = 0
        while isDigit(i) {
            i += 1
            digits += 1
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while isDigit(i) {
                i += 1
                digits += 1
            }
        }
        guard digits > 0 else { return 0 }
        var end = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            var j = i + 1
            if j < bytes.count, bytes[j] == UInt8(ascii: "-") || bytes[j] == UInt8(ascii: "+") { j += 1 }
            if isDigit(j) {
                while isDigit(j) { j += 1 }
                end = j
            }
        }
        var text = String(decoding: bytes[..<end], as: UTF8.self)
        if text.hasSuffix(".") { text.removeLast() }
        return Double(text) ?? 0
    }

    /// `NSString.boolValue`: after leading whitespace, an optional sign and leading
    /// zeros, true when the next character is `Y`, `y`, `T`, `t` or a digit 1–9.
    static func boolValue(_ string: String) -> Bool {
        var bytes = Substring(string).utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            bytes = bytes.dropFirst()
        }
        bytes = bytes.drop { $0 == UInt8(ascii: "0") }
        guard let first = bytes.first else { return false }
        switch first {
        case UInt8(ascii: "Y"), UInt8(ascii: "y"), UInt8(ascii: "T"), UInt8(ascii: "t"): return true
        case UInt8(ascii: "1")...UInt8(ascii: "9"): return true
        default: return false
        }
    }
}
