/// Reads the old ASCII property-list format of NeXTSTEP and OpenStep, `.strings`
/// files included, as CoreFoundation's old-style parser reads it.
///
/// Corresponds to `PropertyListSerialization.propertyList(from:options:format:)` given
/// `.openStep` data. The grammar:
/// - dictionaries `{ key = value; … }`, every entry ending in `;`; `key;` alone means
///   `key = key;`. A later duplicate key replaces the earlier value.
/// - arrays `( a, b )`, a trailing comma allowed.
/// - data `<0fbd 7778>`: pairs of hex digits, white space between pairs.
/// - strings quoted with `"` or `'`, with escapes `\a \b \f \n \r \t \v`, `\` before a
///   newline, up to three octal digits (a byte of the NeXTSTEP character set), `\U`
///   with up to four hex digits (a UTF-16 unit; an unpaired surrogate becomes U+FFFD,
///   which is what Foundation hands to Swift); any other escaped character stands for
///   itself (`\\`, `\"`, `\'`).
/// - unquoted strings made of `A–Z a–z 0–9 _ $ / : . -`.
/// - comments `// …` and `/* … */`; white space includes U+2028 and U+2029.
/// - a `.strings` file: `key = value;` pairs with no braces at the top level.
///
/// Every scalar is a string: the format has no numbers, booleans or dates. Input is
/// UTF-8, with or without a byte-order mark, or UTF-16 with a byte-order mark (whose
/// error positions then count bytes of its UTF-8 transcoding). Input holding only
/// white space and comments is an empty dictionary; empty input is an error.
///
/// Text after the last entry of a `.strings` file that cannot start a key (`a = b; }`,
/// or `<?xml …` that a merge appended) ends the file, as CoreFoundation's
/// `parsePlistDictContent` ends it: the pairs before it are the value, and the text is
/// reported as a ``PropertyListWarning``. A key that is not followed by `=` or `;` is
/// still an error, as it is there.
///
/// ```swift
/// let strings = try PropertyListReader().read(Array("greeting = \"Hello\";".utf8), as: .openStep)
/// ```
enum OpenStepPropertyListReader {
    /// The value, and a warning for text a `.strings` file ends before.
    /// - Throws: ``PropertyListError`` with the line and column of the problem:
    ///   `.syntaxError`, `.truncated` (input ends inside a value), `.invalidString`
    ///   (text that is not valid UTF-8 or UTF-16), `.limitExceeded`.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, limits: PropertyListLimits) throws(PropertyListError)
        -> (value: PropertyListValue, warnings: [PropertyListWarning])
    {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let utf8 = try transcodeUTF16(UnsafeBufferPointer(rebasing: bytes[2...]), bigEndian: bytes[0] == 0xFE)
            return try utf8.withUnsafeBufferPointer { (utf8) throws(PropertyListError) in
                var parser = OpenStepParser(bytes: utf8, position: 0, limits: limits)
                return (try parser.parseDocument(), parser.warnings)
            }
        }
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var parser = OpenStepParser(bytes: bytes, position: start, limits: limits)
        return (try parser.parseDocument(), parser.warnings)
    }

    /// UTF-16 in the given byte order, as UTF-8.
    private static func transcodeUTF16(_ bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool) throws(PropertyListError)
        -> [UInt8]
    {
        guard bytes.count % 2 == 0 else {
            throw PropertyListError(.invalidString, "UTF-16 text has an odd number of bytes", offset: bytes.count + 1)
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = 0
        while index < bytes.count {
            let first = UInt16(bytes[index])
            let second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        var utf8: [UInt8] = []
        utf8.reserveCapacity(units.count)
        let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true) {
            utf8.append($0)
        }
        guard !failed else {
            throw PropertyListError(.invalidString, "UTF-16 text contains an unpaired surrogate")
        }
        return utf8
    }
}
