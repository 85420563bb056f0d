#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes Apple's XML property lists, byte for byte in the layout
/// `PropertyListSerialization` and `plutil -convert xml1` produce.
///
/// Corresponds to `PropertyListSerialization.data(fromPropertyList:format: .xml, options:)`.
/// The layout: the standard header and DOCTYPE, one element per line indented with tabs,
/// `<dict/>` and `<array/>` when empty, `&`, `<` and `>` escaped, dates in whole seconds
/// with a `Z`, base64 in lines of `76 - 8 × indent` characters (the indent counting at
/// most 8 tabs, as Core Foundation counts it), UIDs as `{CF$UID: n}` dictionaries and a
/// newline after `</plist>`.
///
/// Where we depart from Core Foundation, on purpose:
/// - Keys keep the dictionary's order; Core Foundation sorts them.
/// - Reals are written as the shortest text that reads back to the same `Double`
///   (`0.1`, not `0.10000000000000001`); `-0.0` keeps its sign. Infinities and NaN are
///   spelled `+infinity`, `-infinity` and `nan`, as Core Foundation writes and reads them.
/// - A `.float` is written as the `Double` it widens to, so it reads back as a value equal
///   to it.
///
/// Like Core Foundation, control characters XML 1.0 has no place for (U+0000–U+0008,
/// U+000B, U+000C, U+000E–U+001F, which real nibs hold as key equivalents) are written
/// raw. Apple's readers and ours read them back; strict XML parsers (`plistlib`,
/// libxml2) reject such a document, as they reject Apple's own.
///
/// ```swift
/// let bytes = try XMLPropertyListWriter.write(["name": "Spork", "price": 3.5])
/// ```
enum XMLPropertyListWriter {
    private static let header = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)
    private static let footer = Array("</plist>\n".utf8)
    private static let maximumLineLength = 76
    private static let maximumDataIndent = 8

    /// - Throws: ``PropertyListError``, naming the key path: `.unsupportedValue` for a
    ///   date that is not finite, `.limitExceeded` for a container (a UID's
    ///   `{CF$UID}` dictionary included) inside `maxDepth` others.
    static func write(_ value: PropertyListValue, maxDepth: Int = PropertyListLimits.default.maxDepth)
        throws(PropertyListError) -> [UInt8]
    {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        output.append(contentsOf: header)
        try append(value, indent: 0, maxDepth: maxDepth, to: &output)
        output.append(contentsOf: footer)
        return output
    }

    /// Appends `value`, which sits inside `indent` containers.
    private static func append(_ value: PropertyListValue, indent: Int, maxDepth: Int, to output: inout [UInt8])
        throws(PropertyListError)
    {
        appendTabs(indent, to: &output)
        switch value {
        case .string(let string):
            appendElement("string", escaping: string, to: &output)
        case .integer(let integer):
            appendElement("integer", text: String(integer), to: &output)
        case .unsignedInteger(let integer):
            appendElement("integer", text: String(integer), to: &output)
        case .real(let real):
            appendElement("real", text: text(of: real), to: &output)
        case .float(let float):
            appendElement("real", text: text(of: Double(float)), to: &output)
        case .bool(let bool):
            append(bool ? "<true/>\n" : "<false/>\n", to: &output)
        case .date(let date):
            append("<date>", to: &output)
            try ISO8601Date.format(date.timeIntervalSinceReferenceDate, into: &output)
            append("</date>\n", to: &output)
        case .data(let data):
            append("<data>\n", to: &output)
            appendBase64(data, indent: indent, to: &output)
            appendTabs(indent, to: &output)
            append("</data>\n", to: &output)
        case .array(let array):
            guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
            guard !array.isEmpty else { return append("<array/>\n", to: &output) }
            append("<array>\n", to: &output)
            for (index, element) in array.enumerated() {
                do {
                    try append(element, indent: indent + 1, maxDepth: maxDepth, to: &output)
                } catch {
                    throw error.inside("[\(index)]")
                }
            }
            appendTabs(indent, to: &output)
            append("</array>\n", to: &output)
        case .dictionary(let dictionary):
            guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
            guard !dictionary.isEmpty else { return append("<dict/>\n", to: &output) }
            append("<dict>\n", to: &output)
            for (key, element) in dictionary {
                do {
                    appendTabs(indent + 1, to: &output)
                    appendElement("key", escaping: key, to: &output)
                    try append(element, indent: indent + 1, maxDepth: maxDepth, to: &output)
                } catch {
                    throw error.inside(key)
                }
            }
            appendTabs(indent, to: &output)
            append("</dict>\n", to: &output)
        case .uid(let uid):
            // Read back, the `{CF$UID}` dictionary is a level of nesting.
            guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
            append("<dict>\n", to: &output)
            appendTabs(indent + 1, to: &output)
            appendElement("key", text: PropertyListUID.dictionaryKey, to: &output)
            appendTabs(indent + 1, to: &output)
            appendElement("integer", text: String(uid.value), to: &output)
            appendTabs(indent, to: &output)
            append("</dict>\n", to: &output)
        }
    }

    /// The shortest text that reads back to `real`, with Core Foundation's names for
    /// the non-finite values.
    private static func text(of real: Double) -> String {
        if real.isNaN { return "nan" }
        if real.isInfinite { return real < 0 ? "-infinity" : "+infinity" }
        return real.description
    }

    /// `<name>text</name>` and a newline, for text that needs no escaping.
    private static func appendElement(_ name: StaticString, text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "<"))
        append(name, to: &output)
        output.append(UInt8(ascii: ">"))
        output.append(contentsOf: text.utf8)
        output.append(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "/")])
        append(name, to: &output)
        output.append(contentsOf: [UInt8(ascii: ">"), 0x0A])
    }

    private static func appendElement(_ name: StaticString, escaping string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "<"))
        append(name, to: &output)
        output.append(UInt8(ascii: ">"))
        var string = string
        string.withUTF8 { appendEscaped($0, to: &output) }
        output.append(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "/")])
        append(name, to: &output)
        output.append(contentsOf: [UInt8(ascii: ">"), 0x0A])
    }

    /// Appends `text` with `&`, `<` and `>` escaped, in runs between special bytes.
    private static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var runStart = 0
        for (index, byte) in text.enumerated() where byte <= UInt8(ascii: ">") {
            let replacement: StaticString
            switch byte {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            default: continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
            append(replacement, to: &output)
            runStart = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...]))
    }

    /// Base64 lines as Core Foundation lays them out: each indented like the `<data>`
    /// tag (at most 8 tabs), `76 - 8 × tabs` characters long, the last one shorter.
    private static func appendBase64(_ data: Data, indent: Int, to output: inout [UInt8]) {
        guard !data.isEmpty else { return }
        let tabs = min(indent, maximumDataIndent)
        let lineLength = maximumLineLength - 8 * tabs
        appendTabs(tabs, to: &output)
        Base64.encode(data, lineLength: lineLength, lineBreak: [0x0A] + repeatElement(0x09, count: tabs), into: &output)
        output.append(0x0A)
    }

    private static func appendTabs(_ count: Int, to output: inout [UInt8]) {
        for _ in 0..<count { output.append(0x09) }
    }

    private static func append(_ literal: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}

extension PropertyListError {
    /// This error, its key path prefixed with `component` (a key, or `[index]`): the
    /// writer builds paths on the way out, so writing that succeeds never pays for them.
    fileprivate func inside(_ component: String) -> PropertyListError {
        var error = self
        switch keyPath {
        case nil: error.keyPath = component
        case let path? where path.hasPrefix("["): error.keyPath = component + path
        case let path?: error.keyPath = component + "." + path
        }
        return error
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
