#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes the old ASCII (OpenStep) property-list format.
///
/// Apple's `PropertyListSerialization` reads this format but does not write it; the
/// output here is what its reader, and ours, read back to the same value. Layout:
/// one entry per line, nested containers indented by a tab, as Xcode lays out project
/// files:
///
/// ```
/// {
/// 	name = Spork;
/// 	tags = (
/// 		kitchen,
/// 		"rusty one"
/// 	);
/// 	photo = <89504e47 0d0a>;
/// }
/// ```
///
/// A string is written bare when it is made only of `A–Z a–z 0–9 _ $ / : . -` and
/// cannot be mistaken for a comment; otherwise it is quoted, escaping `"` and `\`,
/// writing `\n`, `\r`, `\t`, other control characters as `\U00XX`, and everything
/// else as UTF-8. Data is lowercase hex in groups of four bytes.
enum OpenStepPropertyListWriter {
    /// - Throws: ``PropertyListError`` with the key path (`items[3].count`) of the first
    ///   integer, real, boolean, date or UID, `.unsupportedValue` (the format has only
    ///   strings, data, arrays and dictionaries), or of a container inside `maxDepth`
    ///   others, `.limitExceeded`.
    static func write(_ value: PropertyListValue, maxDepth: Int = PropertyListLimits.default.maxDepth)
        throws(PropertyListError) -> [UInt8]
    {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        try write(value, indent: 0, maxDepth: maxDepth, into: &output)
        output.append(0x0A)
        return output
    }

    /// Writes `value`, which sits inside `indent` containers.
    private static func write(_ value: PropertyListValue, indent: Int, maxDepth: Int, into output: inout [UInt8])
        throws(PropertyListError)
    {
        switch value {
        case .string(let string):
            appendString(string, into: &output)
        case .data(let data):
            appendData(data, into: &output)
        case .array(let array):
            guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
            output.append(UInt8(ascii: "("))
            guard !array.isEmpty else {
                output.append(UInt8(ascii: ")"))
                return
            }
            for (index, element) in array.enumerated() {
                newline(indent: indent + 1, into: &output)
                do {
                    try write(element, indent: indent + 1, maxDepth: maxDepth, into: &output)
                } catch {
                    throw error.inside(index: index)
                }
                if index < array.count - 1 { output.append(UInt8(ascii: ",")) }
            }
            newline(indent: indent, into: &output)
            output.append(UInt8(ascii: ")"))
        case .dictionary(let dictionary):
            guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
            output.append(UInt8(ascii: "{"))
            guard !dictionary.isEmpty else {
                output.append(UInt8(ascii: "}"))
                return
            }
            for (key, element) in dictionary {
                newline(indent: indent + 1, into: &output)
                appendString(key, into: &output)
                output.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: "="), UInt8(ascii: " ")])
                do {
                    try write(element, indent: indent + 1, maxDepth: maxDepth, into: &output)
                } catch {
                    throw error.inside(key: key)
                }
                output.append(UInt8(ascii: ";"))
            }
            newline(indent: indent, into: &output)
            output.append(UInt8(ascii: "}"))
        case .integer, .unsignedInteger, .real, .float, .bool, .date, .uid:
            throw PropertyListError(.unsupportedValue, "OpenStep property lists have no \(value.kindName) type")
        }
    }

    private static func newline(indent: Int, into output: inout [UInt8]) {
        output.append(0x0A)
        output.append(contentsOf: repeatElement(0x09, count: indent))
    }

    private static func appendString(_ string: String, into output: inout [UInt8]) {
        if canWriteBare(string) {
            output.append(contentsOf: string.utf8)
            return
        }
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20, 0x7F:
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "U"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether `string` reads back unquoted: non-empty, only unquoted characters, and
    /// no `//` that a reader could take for a comment (`*` is always quoted).
    private static func canWriteBare(_ string: String) -> Bool {
        var previous: UInt8 = 0
        for byte in string.utf8 {
            guard OpenStepParser.isUnquotedCharacter(byte) else { return false }
            if previous == UInt8(ascii: "/"), byte == UInt8(ascii: "/") { return false }
            previous = byte
        }
        return !string.isEmpty
    }

    private static func appendData(_ data: Data, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "<"))
        for (index, byte) in data.enumerated() {
            if index > 0, index % 4 == 0 { output.append(UInt8(ascii: " ")) }
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        }
        output.append(UInt8(ascii: ">"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
