#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a property-list value as JSON, as `plutil -convert json` does.
///
/// Compact by default (`{"a":[1,2]}`); `prettyPrinted` indents by two spaces and
/// writes `"key" : value`, the layout of `JSONSerialization.WritingOptions.prettyPrinted`,
/// ending with a newline. `sortedKeys` orders keys by Unicode code point (as Python's
/// `sort_keys` does); otherwise dictionaries keep their order. Strings are written by
/// `JSONString`, as every JSON of Keepsake's is. Integers are exact across
/// `Int64.min...UInt64.max`; reals use the shortest text that reads back to the same
/// `Double` (a 32-bit real is widened first, so its value survives). Data, dates and
/// UIDs follow ``JSONWritingOptions``.
///
/// ```swift
/// let json = try PropertyListWriter(format: .json).write(["name": "Spork", "count": 2])
/// ```
struct JSONPropertyListWriter {
    var options: JSONWritingOptions
    /// How many containers a container may sit inside; a UID written as `{"CF$UID": n}`
    /// counts as one.
    var maxDepth = PropertyListLimits.default.maxDepth

    /// - Throws: ``PropertyListError`` with the value's key path: `.unsupportedValue`
    ///   for a non-finite real, or data, a date or a UID that `options` rejects;
    ///   `.limitExceeded` for a container nested deeper than `maxDepth`.
    func write(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        try write(value, indent: 0, into: &output)
        if options.prettyPrinted { output.append(0x0A) }
        return output
    }

    /// Writes `value`, which sits inside `indent` containers.
    private func write(_ value: PropertyListValue, indent: Int, into output: inout [UInt8]) throws(PropertyListError) {
        switch value {
        case .string(let string):
            JSONString.append(string, into: &output)
        case .integer(let integer):
            JSONString.appendDecimal(integer, into: &output)
        case .unsignedInteger(let integer):
            JSONString.appendDecimal(integer, into: &output)
        case .real(let real):
            try Self.appendReal(real, into: &output)
        case .float(let float):
            try Self.appendReal(Double(float), into: &output)
        case .bool(let bool):
            output.append(contentsOf: (bool ? "true" : "false").utf8)
        case .date(let date):
            switch options.date {
            case .reject:
                throw Self.unsupported(value)
            case .iso8601:
                output.append(UInt8(ascii: "\""))
                try ISO8601Date.format(date.timeIntervalSinceReferenceDate, into: &output)
                output.append(UInt8(ascii: "\""))
            case .secondsSince1970:
                try Self.appendReal(date.timeIntervalSince1970, into: &output)
            }
        case .data(let data):
            guard options.data == .base64 else { throw Self.unsupported(value) }
            output.append(UInt8(ascii: "\""))
            Base64.encode(data, into: &output)
            output.append(UInt8(ascii: "\""))
        case .uid(let uid):
            guard options.uid == .dictionary else { throw Self.unsupported(value) }
            let dictionary: PropertyListValue = [PropertyListUID.dictionaryKey: .unsignedInteger(uid.value)]
            try write(dictionary, indent: indent, into: &output)
        case .array(let array):
            guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
            try writeArray(array, indent: indent, into: &output)
        case .dictionary(let dictionary):
            guard indent < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
            try writeDictionary(dictionary, indent: indent, into: &output)
        }
    }

    private func writeArray(_ array: [PropertyListValue], indent: Int, into output: inout [UInt8])
        throws(PropertyListError)
    {
        output.append(UInt8(ascii: "["))
        for (index, element) in array.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            newline(indent: indent + 1, into: &output)
            do {
                try write(element, indent: indent + 1, into: &output)
            } catch {
                throw error.inside(index: index)
            }
        }
        if !array.isEmpty { newline(indent: indent, into: &output) }
        output.append(UInt8(ascii: "]"))
    }

    private func writeDictionary(_ dictionary: PropertyListDictionary, indent: Int, into output: inout [UInt8])
        throws(PropertyListError)
    {
        output.append(UInt8(ascii: "{"))
        var entries = Array(dictionary)
        if options.sortedKeys {
            entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        }
        for (index, entry) in entries.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            newline(indent: indent + 1, into: &output)
            JSONString.append(entry.key, into: &output)
            if options.prettyPrinted { output.append(UInt8(ascii: " ")) }
            output.append(UInt8(ascii: ":"))
            if options.prettyPrinted { output.append(UInt8(ascii: " ")) }
            do {
                try write(entry.value, indent: indent + 1, into: &output)
            } catch {
                throw error.inside(key: entry.key)
            }
        }
        if !entries.isEmpty { newline(indent: indent, into: &output) }
        output.append(UInt8(ascii: "}"))
    }

    private func newline(indent: Int, into output: inout [UInt8]) {
        guard options.prettyPrinted else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    private static func unsupported(_ value: PropertyListValue) -> PropertyListError {
        PropertyListError(
            .unsupportedValue, "JSON has no \(value.kindName) type and the writing options do not render one")
    }

    /// The shortest decimal that reads back as `real`, in JSON's number grammar.
    private static func appendReal(_ real: Double, into output: inout [UInt8]) throws(PropertyListError) {
        guard real.isFinite else {
            throw PropertyListError(.unsupportedValue, "JSON cannot represent the real \(real)")
        }
        // Swift's description is the shortest round-tripping form (`0.1`, `1e-05`,
        // `1e+100`, `-0.0`), and always valid JSON once finite.
        output.append(contentsOf: real.description.utf8)
    }
}
