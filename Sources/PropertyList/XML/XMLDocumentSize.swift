/// How many bytes ``XMLPropertyListWriter`` writes for a value, found by a walk that
/// writes nothing, so the writer can make its output array once, at its final size.
///
/// Exact but for three things, each of which the writer absorbs by growing:
/// - escapes count as the one byte they replace (`&amp;` is four bytes more);
/// - reals count as 24 bytes, the longest shortest form of a `Double`, so usually more;
/// - dates count as 20 bytes, the length of every year from 0 to 9999.
enum XMLDocumentSize {
    /// The bytes of `value` between the header and the footer.
    static func count(of value: PropertyListValue, maxDepth: Int) -> Int {
        size(of: value, indent: 0, maxDepth: maxDepth)
    }

    /// The bytes `value` takes inside `indent` containers, its own tabs included.
    /// Inlined into the loops over a container's elements, so that a scalar is measured
    /// where it is stored: passed to a call, each would be retained and released.
    @inline(__always)
    private static func size(of value: PropertyListValue, indent: Int, maxDepth: Int) -> Int {
        switch value {
        case .string(let string): indent + length("<string></string>\n") + string.utf8.count
        case .integer(let integer): indent + length("<integer></integer>\n") + decimalLength(integer)
        case .unsignedInteger(let integer): indent + length("<integer></integer>\n") + decimalLength(integer)
        case .real, .float: indent + length("<real></real>\n") + 24
        case .bool(let bool): indent + (bool ? length("<true/>\n") : length("<false/>\n"))
        case .date: indent + length("<date></date>\n") + 20
        case .data(let data): 2 * indent + length("<data>\n</data>\n") + base64Length(data.count, indent: indent)
        case .array, .dictionary, .uid: containerSize(of: value, indent: indent, maxDepth: maxDepth)
        }
    }

    /// The bytes of an array, a dictionary or a UID's `{CF$UID}` dictionary. Containers
    /// past `maxDepth` count as empty: the writer throws there.
    @inline(never)
    private static func containerSize(of value: PropertyListValue, indent: Int, maxDepth: Int) -> Int {
        switch value {
        case .array(let elements):
            if indent >= maxDepth || elements.isEmpty { return indent + length("<array/>\n") }
            return elements.withUnsafeBufferPointer { elements in
                var total = 2 * indent + length("<array>\n</array>\n")
                for position in elements.indices {
                    total += size(of: elements[position], indent: indent + 1, maxDepth: maxDepth)
                }
                return total
            }
        case .dictionary(let dictionary):
            if indent >= maxDepth || dictionary.isEmpty { return indent + length("<dict/>\n") }
            return dictionary.withUnsafeEntries { entries in
                var total = 2 * indent + length("<dict>\n</dict>\n")
                for position in entries.indices {
                    total += indent + 1 + length("<key></key>\n") + entries[position].key.utf8.count
                    total += size(of: entries[position].value, indent: indent + 1, maxDepth: maxDepth)
                }
                return total
            }
        case .uid(let uid):
            return 2 * indent + length("<dict>\n</dict>\n") + indent + 1 + length("<key></key>\n")
                + PropertyListUID.dictionaryKey.utf8.count + indent + 1 + length("<integer></integer>\n")
                + decimalLength(uid.value)
        default:
            return size(of: value, indent: indent, maxDepth: maxDepth)
        }
    }

    @inline(__always)
    private static func length(_ text: StaticString) -> Int { text.utf8CodeUnitCount }

    private static func decimalLength(_ value: Int64) -> Int {
        (value < 0 ? 1 : 0) + decimalLength(value.magnitude)
    }

    private static func decimalLength(_ value: UInt64) -> Int {
        var digits = 1
        var remaining = value
        while remaining >= 10 {
            remaining /= 10
            digits += 1
        }
        return digits
    }

    /// Base64 text in lines as the writer lays them out: each line its tabs, then up to
    /// `76 - 8 × tabs` characters and a newline.
    private static func base64Length(_ byteCount: Int, indent: Int) -> Int {
        guard byteCount > 0 else { return 0 }
        let tabs = min(indent, XMLPropertyListWriter.maximumDataIndent)
        let lineLength = XMLPropertyListWriter.maximumLineLength - 8 * tabs
        let characters = (byteCount + 2) / 3 * 4
        let lines = (characters + lineLength - 1) / lineLength
        return characters + lines * (tabs + 1)
    }
}
