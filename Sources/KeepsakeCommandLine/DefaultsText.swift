import ArgumentParser
public import Foundation
public import PropertyList

/// Values as macOS `defaults read` prints them: old-style plist text with bare
/// numbers, booleans as 1 and 0, dates in UTC and data as hex.
public enum DefaultsText {
    /// One value for `read DOMAIN KEY`: strings without quotes, the rest as ``render(_:)``.
    public static func bare(_ value: PropertyListValue) -> String {
        if case .string(let string) = value { return string }
        return render(value)
    }

    public static func render(_ value: PropertyListValue, indent: String = "") -> String {
        let inner = indent + "    "
        switch value {
        case .string(let string): return quoted(string)
        case .integer(let integer): return String(integer)
        case .unsignedInteger(let integer): return String(integer)
        case .real(let real): return real.rounded() == real && abs(real) < 1e15 ? String(Int64(real)) : String(real)
        case .float(let float): return render(.real(Double(float)))
        case .bool(let bool): return bool ? "1" : "0"
        case .date(let date): return quoted(dateFormatter.string(from: date))
        case .data(let data):
            return "{length = \(data.count), bytes = 0x\(data.map { String(format: "%02x", $0) }.joined())}"
        case .uid(let uid): return "{CF$UID = \(uid.value);}"
        case .array(let elements):
            guard !elements.isEmpty else { return "(\n\(indent))" }
            return "(\n" + elements.map { inner + render($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent))"
        case .dictionary(let dictionary):
            guard !dictionary.isEmpty else { return "{\n\(indent)}" }
            return "{\n"
                + dictionary.map { "\(inner)\(quoted($0.key)) = \(render($0.value, indent: inner));\n" }.joined()
                + "\(indent)}"
        }
    }

    /// Bare when only letters, digits, `_`, `.` and `$`; quoted and escaped otherwise.
    public static func quoted(_ string: String) -> String {
        let bare =
            !string.isEmpty
            && string.unicodeScalars.allSatisfy {
                ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) || $0 == "_" || $0 == "." || $0 == "$"
            }
        if bare { return string }
        var escaped = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    public static let dateFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return formatter
    }()
}

/// The value of `defaults write DOMAIN KEY …`: a plist literal, or a type flag and its value(s).
public enum TypedValue {
    /// - Parameter current: the key's stored value, for `-array-add` and `-dict-add`.
    /// - Throws: `ValidationError` for anything malformed (exit status 64).
    public static func parse(_ arguments: [String], current: PropertyListValue?) throws -> PropertyListValue {
        guard let first = arguments.first else { throw ValidationError("Missing value.") }
        switch first {
        case "-array", "-array-add":
            var elements = try list(Array(arguments.dropFirst()))
            if first == "-array-add", case .array(let existing)? = current { elements = existing + elements }
            return .array(elements)
        case "-dict", "-dict-add":
            let items = try list(Array(arguments.dropFirst()), keyed: true)
            var dictionary = PropertyListDictionary()
            if first == "-dict-add", case .dictionary(let existing)? = current { dictionary = existing }
            var index = 0
            while index + 1 < items.count {
                guard case .string(let key) = items[index] else {
                    throw ValidationError("Dictionary keys must be strings.")
                }
                dictionary[key] = items[index + 1]
                index += 2
            }
            return .dictionary(dictionary)
        default:
            let (value, used) = try scalar(arguments, at: 0)
            guard used == arguments.count else {
                throw ValidationError(
                    "Unexpected arguments after the value: \(arguments.dropFirst(used).joined(separator: " "))")
            }
            return value
        }
    }

    /// Elements, each optionally after its own type flag; `keyed` requires pairs.
    private static func list(_ arguments: [String], keyed: Bool = false) throws -> [PropertyListValue] {
        var values: [PropertyListValue] = []
        var index = 0
        while index < arguments.count {
            let (value, used) = try scalar(arguments, at: index)
            values.append(value)
            index += used
        }
        if keyed, values.count % 2 != 0 { throw ValidationError("-dict takes keys and values in pairs.") }
        return values
    }

    /// One value at `index`: a type flag and its argument, or a plist literal / string.
    private static func scalar(_ arguments: [String], at index: Int) throws -> (PropertyListValue, Int) {
        let flag = arguments[index]
        let typed = ["-string", "-int", "-integer", "-float", "-bool", "-boolean", "-date", "-data"]
        guard typed.contains(flag) else {
            if flag.hasPrefix("-"), flag.count > 1, Double(flag) == nil {
                throw ValidationError(
                    "Unknown type flag \(flag); use -string, -int, -float, -bool, -date, -data, -array or -dict.")
            }
            return (literal(flag), 1)
        }
        guard index + 1 < arguments.count else { throw ValidationError("\(flag) needs a value.") }
        let text = arguments[index + 1]
        switch flag {
        case "-string":
            return (.string(text), 2)
        case "-int", "-integer":
            guard let integer = Int64(text) else { throw ValidationError("'\(text)' is not an integer.") }
            return (.integer(integer), 2)
        case "-float":
            guard let real = Double(text) else { throw ValidationError("'\(text)' is not a number.") }
            return (.real(real), 2)
        case "-bool", "-boolean":
            switch text.lowercased() {
            case "yes", "true", "1": return (.bool(true), 2)
            case "no", "false", "0": return (.bool(false), 2)
            default: throw ValidationError("'\(text)' is not a boolean (YES, NO, true, false, 1, 0).")
            }
        case "-date":
            guard let date = parseDate(text) else {
                throw ValidationError("'\(text)' is not a date (2026-01-02T03:04:05Z or 2026-01-02 03:04:05 +0000).")
            }
            return (.date(date), 2)
        default:
            guard let data = hex(text) else { throw ValidationError("'\(text)' is not hexadecimal data.") }
            return (.data(data), 2)
        }
    }

    /// A plist literal (`(a, b)`, `{ k = v; }`, XML), else the text as a string.
    public static func literal(_ text: String) -> PropertyListValue {
        if let first = text.first, "({<\"".contains(first), let value = try? PropertyListReader().read(Array(text.utf8))
        {
            return value
        }
        return .string(text)
    }

    public static func parseDate(_ text: String) -> Date? {
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        return DefaultsText.dateFormatter.date(from: text)
    }

    public static func hex(_ text: String) -> Data? {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        guard digits.count % 2 == 0 else { return nil }
        var data = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            data.append(byte)
            index += 2
        }
        return data
    }
}
