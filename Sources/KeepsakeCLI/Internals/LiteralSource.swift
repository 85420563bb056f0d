import Foundation
import PropertyList

/// A property list as source code, as `plutil -convert swift|objc` writes it: one
/// constant named after the input file, dictionaries with their keys in `plutil`'s
/// order, four spaces of indentation per level.
///
/// The Swift is meant to compile as it is: the constant is annotated `[Any]` or
/// `[String : Any]` when Swift could not infer its type alone (elements of different
/// types at any depth, or an empty collection), which gives every nested literal a
/// context, and strings are escaped for Swift. Objective-C literals have no dates or data.
struct LiteralSource {
    enum Language {
        case swift, objectiveC
    }

    let language: Language
    /// The input's path, for the constant's name and the comment that names the source.
    let sourcePath: String

    /// The whole source file.
    /// - Parameter headerName: for Objective-C, the header to import (`-o`'s stem), if any.
    func file(_ value: PropertyListValue, headerName: String? = nil) throws -> String {
        var text = ""
        switch language {
        case .swift:
            text += "/// Generated from \(sourceFileName)\n"
            text += "let \(constantName)"
            if case .array = value, Self.swiftType(of: value) == nil { text += " : [Any]" }
            if case .dictionary = value, Self.swiftType(of: value) == nil { text += " : [String : Any]" }
            text += " = "
            try append(value, depth: 0, to: &text)
            text += "\n"
        case .objectiveC:
            if let headerName { text += "#import \"\(headerName).h\"\n\n" }
            text += try objectiveCDeclaration(of: value, forHeader: false)
            try append(value, depth: 0, to: &text)
            text += ";\n"
        }
        return text
    }

    /// The Objective-C header that declares the constant.
    func objectiveCHeader(_ value: PropertyListValue) throws -> String {
        "#import <Foundation/Foundation.h>\n\n" + (try objectiveCDeclaration(of: value, forHeader: true)) + ";\n"
    }

    /// The input's file name for the `/// Generated from` comment, with line breaks and
    /// other control characters as `?`: a file name may hold them, and a newline would
    /// end the comment and put the rest of the name into the code.
    private var sourceFileName: String {
        let name = sourcePath == "-" ? "-" : URL(fileURLWithPath: sourcePath).lastPathComponent
        return String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    /// The file name without its extension, made an identifier: `-` and spaces become
    /// `_`, other characters that cannot be in one are dropped.
    var constantName: String {
        let stem = sourcePath == "-" ? "-" : URL(fileURLWithPath: sourcePath).deletingPathExtension().lastPathComponent
        var name = ""
        for character in stem {
            if character == "-" || character == " " {
                name.append("_")
            } else if character == "_" || character.isLetter || character.isNumber {
                name.append(character)
            }
        }
        if name.isEmpty || name.first!.isNumber { name = "_" + name }
        return name
    }

    private func objectiveCDeclaration(of value: PropertyListValue, forHeader: Bool) throws -> String {
        let className: String
        switch value {
        case .string: className = "NSString"
        case .array: className = "NSArray"
        case .dictionary: className = "NSDictionary"
        case .integer, .unsignedInteger, .real, .float, .bool: className = "NSNumber"
        case .date, .data, .uid: throw Self.unsupported(value, in: .objectiveC)
        }
        var text = "/// Generated from \(sourceFileName)\n"
        text += "__attribute__((visibility(\"hidden\")))\n"
        if forHeader { text += "extern " }
        text += "\(className) * const \(constantName)"
        if !forHeader { text += " = " }
        return text
    }

    private func append(_ value: PropertyListValue, depth: Int, to text: inout String) throws {
        let objectiveC = language == .objectiveC
        let indent = String(repeating: " ", count: 4 * depth)
        switch value {
        case .string(let string):
            text += (objectiveC ? "@\"" : "\"") + Self.escaped(string, for: language) + "\""
        case .integer(let number):
            text += objectiveC ? "@\(number)" : String(number)
        case .unsignedInteger(let number):
            text += objectiveC ? "@\(number)U" : "UInt64(\(number))"
        case .real(let number):
            text += Self.real(number, objectiveC: objectiveC)
        case .float(let number):
            text += Self.real(Double(number), objectiveC: objectiveC)
        case .bool(let flag):
            text += objectiveC ? (flag ? "@YES" : "@NO") : (flag ? "true" : "false")
        case .date(let date) where !objectiveC:
            text += "Date(timeIntervalSinceReferenceDate: \(date.timeIntervalSinceReferenceDate))"
        case .data(let data) where !objectiveC:
            text += "Data([" + data.map { String(format: "0x%02X", $0) }.joined(separator: ", ") + "])"
        case .array(let elements):
            text += objectiveC ? "@[\n" : "[\n"
            for element in elements {
                text += indent + "    "
                try append(element, depth: depth + 1, to: &text)
                text += ",\n"
            }
            text += indent + "]"
        case .dictionary(let dictionary):
            text += objectiveC ? "@{\n" : (dictionary.isEmpty ? "[:" : "[\n")
            for key in dictionary.keys.sorted(by: PlutilText.keyOrder) {
                text += indent + "    "
                text += (objectiveC ? "@\"" : "\"") + Self.escaped(key, for: language) + "\" : "
                try append(dictionary[key]!, depth: depth + 1, to: &text)
                text += ",\n"
            }
            text += (dictionary.isEmpty && !objectiveC ? "" : indent) + (objectiveC ? "}" : "]")
        case .date, .data, .uid:
            throw Self.unsupported(value, in: language)
        }
    }

    /// The type Swift infers for `value`'s literal, or `nil` for a collection it cannot
    /// infer alone (elements of different types, or none).
    private static func swiftType(of value: PropertyListValue) -> String? {
        switch value {
        case .string: return "String"
        case .integer: return "Int"
        case .unsignedInteger: return "UInt64"
        case .real, .float: return "Double"
        case .bool: return "Bool"
        case .date: return "Date"
        case .data: return "Data"
        case .uid: return nil
        case .array(let elements):
            return commonType(elements).map { "[\($0)]" }
        case .dictionary(let dictionary):
            return commonType(dictionary.values).map { "[String: \($0)]" }
        }
    }

    /// The one type all `values` have, or `nil`.
    private static func commonType(_ values: [PropertyListValue]) -> String? {
        var common: String?
        for value in values {
            guard let type = swiftType(of: value), common == nil || common == type else { return nil }
            common = type
        }
        return common
    }

    private static func unsupported(_ value: PropertyListValue, in language: Language) -> CommandFailure {
        let name = language == .swift ? "Swift" : "Objective-C"
        return CommandFailure("\(name) literals have no \(value.kindName) values")
    }

    /// Six decimals, as `plutil` writes reals; the values no literal spells by name.
    private static func real(_ number: Double, objectiveC: Bool) -> String {
        guard number.isFinite else {
            if objectiveC { return number.isNaN ? "@(NAN)" : (number < 0 ? "@(-INFINITY)" : "@(INFINITY)") }
            return number.isNaN ? "Double.nan" : (number < 0 ? "-Double.infinity" : "Double.infinity")
        }
        return (objectiveC ? "@" : "") + String(format: "%f", number)
    }

    /// `string` for a literal of `language`: quotes, backslashes and control characters
    /// escaped; `\n`, `\r` and `\t` by name, other controls as `\u{…}` in Swift and
    /// as three octal digits in Objective-C. In Objective-C a `?` after a `?` is written
    /// `\?`, so that no `??` is left to start a trigraph (`??/` is a backslash under
    /// `-trigraphs` and ISO C before C23, and would end the string early).
    private static func escaped(_ string: String, for language: Language) -> String {
        var escaped = ""
        var previous: Unicode.Scalar?
        for scalar in string.unicodeScalars {
            defer { previous = scalar }
            switch scalar {
            case "?" where language == .objectiveC && previous == "?": escaped += "\\?"
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                switch language {
                case .swift:
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                case .objectiveC:
                    let octal = String(scalar.value, radix: 8)
                    escaped += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
                }
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
