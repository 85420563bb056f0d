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
    private static let header: StaticString = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
    private static let footer: StaticString = "</plist>\n"
    static let maximumLineLength = 76
    static let maximumDataIndent = 8

    /// - Throws: ``PropertyListError``, naming the key path: `.unsupportedValue` for a
    ///   date that is not finite, `.limitExceeded` for a container (a UID's
    ///   `{CF$UID}` dictionary included) inside `maxDepth` others.
    static func write(_ value: PropertyListValue, maxDepth: Int = PropertyListLimits.default.maxDepth)
        throws(PropertyListError) -> [UInt8]
    {
        // A sixteenth more than the walk counts, for a few escapes per line of text.
        let body = XMLDocumentSize.count(of: value, maxDepth: maxDepth)
        let estimate = header.utf8CodeUnitCount + body + body / 16 + footer.utf8CodeUnitCount
        return try ByteSink.collect(estimatedCount: estimate) { sink throws(PropertyListError) in
            var writing = Writing(sink: sink, maxDepth: maxDepth)
            writing.sink.append(header)
            try writing.append(value, indent: 0)
            writing.sink.append(footer)
            return writing.sink
        }
    }

    /// One document being written: the bytes, and a scratch buffer for the dates and
    /// data that other encoders render.
    private struct Writing: ~Copyable {
        var sink: ByteSink
        var scratch: [UInt8] = []
        let maxDepth: Int

        init(sink: consuming ByteSink, maxDepth: Int) {
            self.sink = sink
            self.maxDepth = maxDepth
        }

        /// Appends `value`, which sits inside `indent` containers.
        mutating func append(_ value: PropertyListValue, indent: Int) throws(PropertyListError) {
            sink.append(0x09, count: indent)
            switch value {
            case .string(let string):
                appendElement("<string>", "</string>\n", escaping: string)
            case .integer(let integer):
                sink.append("<integer>")
                sink.appendDecimal(integer)
                sink.append("</integer>\n")
            case .unsignedInteger(let integer):
                sink.append("<integer>")
                sink.appendDecimal(integer)
                sink.append("</integer>\n")
            case .real(let real):
                appendElement("<real>", "</real>\n", text: text(of: real))
            case .float(let float):
                appendElement("<real>", "</real>\n", text: text(of: Double(float)))
            case .bool(let bool):
                sink.append(bool ? "<true/>\n" : "<false/>\n")
            case .date(let date):
                sink.append("<date>")
                scratch.removeAll(keepingCapacity: true)
                try ISO8601Date.format(date.timeIntervalSinceReferenceDate, into: &scratch)
                sink.append(scratch)
                sink.append("</date>\n")
            case .data(let data):
                sink.append("<data>\n")
                appendBase64(data, indent: indent)
                sink.append(0x09, count: indent)
                sink.append("</data>\n")
            case .array(let array):
                guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
                guard !array.isEmpty else { return sink.append("<array/>\n") }
                sink.append("<array>\n")
                for (index, element) in array.enumerated() {
                    do {
                        try append(element, indent: indent + 1)
                    } catch {
                        throw error.inside(index: index)
                    }
                }
                sink.append(0x09, count: indent)
                sink.append("</array>\n")
            case .dictionary(let dictionary):
                guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
                guard !dictionary.isEmpty else { return sink.append("<dict/>\n") }
                sink.append("<dict>\n")
                try dictionary.withUnsafeEntries { entries throws(PropertyListError) in
                    for entry in entries {
                        do throws(PropertyListError) {
                            sink.append(0x09, count: indent + 1)
                            appendElement("<key>", "</key>\n", escaping: entry.key)
                            try append(entry.value, indent: indent + 1)
                        } catch {
                            throw error.inside(key: entry.key)
                        }
                    }
                }
                sink.append(0x09, count: indent)
                sink.append("</dict>\n")
            case .uid(let uid):
                // Read back, the `{CF$UID}` dictionary is a level of nesting.
                guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
                sink.append("<dict>\n")
                sink.append(0x09, count: indent + 1)
                appendElement("<key>", "</key>\n", text: PropertyListUID.dictionaryKey)
                sink.append(0x09, count: indent + 1)
                sink.append("<integer>")
                sink.appendDecimal(uid.value)
                sink.append("</integer>\n")
                sink.append(0x09, count: indent)
                sink.append("</dict>\n")
            }
        }

        /// The shortest text that reads back to `real`, with Core Foundation's names for
        /// the non-finite values.
        private func text(of real: Double) -> String {
            if real.isNaN { return "nan" }
            if real.isInfinite { return real < 0 ? "-infinity" : "+infinity" }
            return real.description
        }

        /// `opening`, `text`, then `closing` (the end tag and the newline), for text that
        /// needs no escaping.
        private mutating func appendElement(_ opening: StaticString, _ closing: StaticString, text: String) {
            sink.append(opening)
            text.withUTF8Bytes { sink.append($0) }
            sink.append(closing)
        }

        private mutating func appendElement(_ opening: StaticString, _ closing: StaticString, escaping string: String) {
            sink.append(opening)
            string.withUTF8Bytes { appendEscaped($0) }
            sink.append(closing)
        }

        /// Appends `text` with `&`, `<` and `>` escaped, in runs between special bytes,
        /// looking at eight bytes at a time where none of them is special.
        private mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
            guard let start = text.baseAddress else { return }
            let count = text.count
            var runStart = 0
            var index = 0
            while index < count {
                if count - index >= 8, !Self.holdsMarkup(UnsafeRawPointer(start + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                    continue
                }
                // The last bytes, padded with zeros (never markup) to a word.
                if count - index < 8, !Self.holdsMarkup(tail: start + index, count: count - index) { break }
                let replacement: StaticString
                switch start[index] {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                default:
                    index += 1
                    continue
                }
                sink.append(UnsafeBufferPointer(start: start + runStart, count: index - runStart))
                sink.append(replacement)
                index += 1
                runStart = index
            }
            sink.append(UnsafeBufferPointer(start: start + runStart, count: count - runStart))
        }

        /// Whether any of the `count` (fewer than 8) bytes at `start` is `&`, `<` or `>`.
        @inline(__always)
        private static func holdsMarkup(tail start: UnsafePointer<UInt8>, count: Int) -> Bool {
            var word: UInt64 = 0
            withUnsafeMutableBytes(of: &word) { $0.baseAddress!.copyMemory(from: start, byteCount: count) }
            return holdsMarkup(word)
        }

        /// Whether any of the eight bytes of `word` is `&`, `<` or `>`: a byte equal to one
        /// of them is zero after XOR with it, and `(x - 0x01…01) & ~x & 0x80…80` is not
        /// zero exactly when some byte of `x` is.
        @inline(__always)
        private static func holdsMarkup(_ word: UInt64) -> Bool {
            func holdsZeroByte(_ x: UInt64) -> Bool {
                (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
            }
            return holdsZeroByte(word ^ 0x2626_2626_2626_2626) || holdsZeroByte(word ^ 0x3C3C_3C3C_3C3C_3C3C)
                || holdsZeroByte(word ^ 0x3E3E_3E3E_3E3E_3E3E)
        }

        /// Base64 lines as Core Foundation lays them out: each indented like the `<data>`
        /// tag (at most 8 tabs), `76 - 8 × tabs` characters long, the last one shorter.
        private mutating func appendBase64(_ data: Data, indent: Int) {
            guard !data.isEmpty else { return }
            let tabs = min(indent, maximumDataIndent)
            let lineLength = maximumLineLength - 8 * tabs
            sink.append(0x09, count: tabs)
            scratch.removeAll(keepingCapacity: true)
            Base64.encode(
                data, lineLength: lineLength, lineBreak: [0x0A] + repeatElement(0x09, count: tabs), into: &scratch)
            sink.append(scratch)
            sink.append(0x0A)
        }
    }
}
