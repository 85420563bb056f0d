import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// The OpenStep reader and writer, checked against the corpus, hand-read files and
/// Foundation's own old-style parser (CoreFoundation's, on this platform) as a peer.
struct OpenStepPropertyListTests: ReadsOneTextFormat {
    static let format = PropertyListFormat.openStep

    // MARK: Corpus

    /// Every file the manifest lists as OpenStep.
    static let corpusFiles: [String] = {
        guard let manifest = try? Corpus.bytes("MANIFEST.csv") else { return [] }
        // CRLF lines; split on bytes, since "\r\n" is one Character.
        return manifest.split(separator: UInt8(ascii: "\n")).compactMap { line in
            let fields = line.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard fields.count > 2, String(decoding: fields[2], as: UTF8.self) == "openstep" else { return nil }
            return String(decoding: fields[0], as: UTF8.self)
        }
    }()

    @Test(.requiresCorpus) func manifestListsTheOpenStepFiles() throws {
        // The brief's seven: three libplist .ostep, test.strings, two rust-plist ascii, one pbxproj.
        #expect(Self.corpusFiles.count == 7)
        #expect(Self.corpusFiles.contains("plist/valid/rust-plist/netnewswire.pbxproj"))
    }

    @Test(arguments: corpusFiles)
    func corpusFileReadsAsFoundationReadsIt(_ path: String) throws {
        let bytes = try Corpus.bytes(path)
        let ours = try read(bytes)
        let theirs = try #require(foundationRead(bytes), "Foundation could not read \(path)")
        #expect(ours == theirs, "\(path) differs from Foundation's reading")
    }

    @Test(arguments: corpusFiles)
    func corpusFileRoundTrips(_ path: String) throws {
        let value = try read(try Corpus.bytes(path))
        let written = try OpenStepPropertyListWriter.write(value)
        #expect(try read(written) == value, "our reader disagrees with our writer on \(path)")
        #expect(foundationRead(written) == value, "Foundation reads our rewrite of \(path) differently")
    }

    @Test(.requiresCorpus) func animalsMatchTheirHandReadContent() throws {
        // ascii-animals.plist read by eye; the corpus's xml-animals.plist holds the same.
        let expected: PropertyListValue = [
            "AnimalColors": ["lamb": "black", "pig": "pink", "worm": "pink"],
            "AnimalSmells": ["lamb": "lambish", "pig": "piggish", "worm": "wormy"],
            "AnimalSounds": [
                "Lisa": "Why is the worm talking like a lamb?", "lamb": "baa", "pig": "oink", "worm": "baa",
            ],
        ]
        #expect(try read(try Corpus.bytes("plist/valid/rust-plist/ascii-animals.plist")) == expected)
    }

    @Test(.requiresCorpus) func commentsAreSkippedWhereverTheyAppear() throws {
        // o3.ostep read by eye: the commented-out dictionary and values must not appear.
        let expected: PropertyListValue = [
            ["AFirstKey": "A First Value", "ASecondKey": "A Second Value"],
            ["CFirstKey": "C First Value", "CSecondKey": "C Second Corrected Value"],
        ]
        #expect(try read(try Corpus.bytes("plist/valid/libplist/o3.ostep")) == expected)
    }

    @Test(.requiresCorpus) func stringsFileReadsAsADictionary() throws {
        let value = try read(try Corpus.bytes("plist/valid/libplist/test.strings"))
        let dictionary = try #require(value.dictionaryValue)
        #expect(dictionary.count == 12)
        #expect(dictionary.keys.first == "STRINGS_ENTRY")
        #expect(dictionary["BAR"] == "Foo")
        #expect(dictionary["ENTRY1"] == "日本語")
        #expect(dictionary["ENTRY8"] == "हिन्दी")
    }

    @Test(.requiresCorpus) func utf8StringsMatchTheJSONRenderingOfTheSameTest() throws {
        // libplist's o2.ostep and j2.json hold the same list of UTF-8 strings.
        let openStep = try read(try Corpus.bytes("plist/valid/libplist/o2.ostep"))
        let json = try PropertyListReader().read(try Corpus.bytes("plist/reference/libplist/j2.json"), as: .json)
        let key = "Some UTF8 strings"
        #expect(openStep[key] != nil)
        #expect(openStep[key] == json[key])
        // OpenStep has no numbers: the integer reads as a string.
        #expect(openStep["Some Int"] == "32434543632")
        #expect(openStep["Some String with Unicode entity"] == "Yeah check this: \u{1234} !!!")
    }

    @Test(arguments: Corpus.files(under: "plist/invalid/libplist-fuzz-crashes").filter { $0.contains("/oplist-") })
    func fuzzerCrashInputIsRejected(_ path: String) throws {
        let bytes = try Corpus.bytes(path)
        #expect(throws: PropertyListError.self) { try read(bytes) }
        #expect(foundationRead(bytes) == nil, "Foundation accepts \(path); the corpus says it should not")
    }

    // MARK: Constructs

    @Test func dictionaryArrayDataAndStrings() throws {
        let value = try read(
            "{ name = Spork; \"tags\" = ( a, 'b c', ); blob = <0fbd 7778\n 0A>; empty = (); none = {}; }")
        let expected: PropertyListValue = [
            "name": "Spork", "tags": ["a", "b c"], "blob": .data(Data([0x0F, 0xBD, 0x77, 0x78, 0x0A])),
            "empty": [], "none": [:],
        ]
        #expect(value == expected)
        #expect(value.dictionaryValue?.keys == ["name", "tags", "blob", "empty", "none"])
    }

    @Test func everyScalarIsAString() throws {
        #expect(try read("(1, -2.5, YES, 2024-01-01)") == ["1", "-2.5", "YES", "2024-01-01"])
    }

    @Test func unquotedStringsUseCoreFoundationsCharacterSet() throws {
        #expect(try read("abcXYZ019_$/:.-") == "abcXYZ019_$/:.-")
        // `+` is not in the set: it ends an unquoted string.
        #expect(throws: PropertyListError.self) { try read("a+b") }
    }

    @Test(arguments: [
        (#""tab\there""#, "tab\there"),
        (#""\a\b\f\n\r\t\v""#, "\u{07}\u{08}\u{0C}\n\r\t\u{0B}"),
        (#""q\"q\'q\\q""#, "q\"q'q\\q"),
        (#"'single "double" inside'"#, "single \"double\" inside"),
        (#""\q\%""#, "q%"),
        ("\"line\\\nbreak\"", "line\nbreak"),
        (#""\101\1012\0""#, "AA2\u{0}"),
        (#""\U00e9\U41!""#, "éA!"),
        (#""\UD83D\UDE00""#, "😀"),
        (#""\UD83D!""#, "\u{FFFD}!"),
        (#""\UDE00""#, "\u{FFFD}"),
        (#""\UD83D\UD83D\UDE00""#, "\u{FFFD}😀"),
        ("\"raw\nnewline and ünïcödé\"", "raw\nnewline and ünïcödé"),
        ("\"\"", ""),
    ])
    func escapesDecodeAsCoreFoundationDecodesThem(_ source: String, _ expected: String) throws {
        #expect(try read(source) == .string(expected))
        #expect(foundationRead(Array(source.utf8)) == .string(expected), "Foundation decodes \(source) differently")
    }

    @Test func octalEscapesNameNeXTSTEPCharactersAsFoundationDoes() throws {
        // All 256 byte values: each must decode as Foundation decodes it.
        var mismatches: [String] = []
        for byte in 0...255 {
            let source = "\"\\" + String(byte, radix: 8) + "\""
            let ours = try read(source)
            if ours != foundationRead(Array(source.utf8)) { mismatches.append(source) }
        }
        #expect(mismatches.isEmpty)
        #expect(try read(#""\351""#) == "Ø")
    }

    @Test func commentsAndUnicodeSeparatorsAreWhiteSpace() throws {
        let source = "// leading\n{ /* a */ a /**/ = // x\n b;\u{2028}c\u{2029}= d; } /* at the end */ // last"
        #expect(try read(source) == ["a": "b", "c": "d"])
    }

    @Test func stringsFileForms() throws {
        #expect(try read("a = b;\n\"c d\" = 'e';") == ["a": "b", "c d": "e"])
        // `key;` alone stands for `key = key;`.
        #expect(try read("ok; cancel = Cancel;") == ["ok": "ok", "cancel": "Cancel"])
        // Only comments and white space: an empty dictionary.
        #expect(try read("/* nothing */\n// here\n") == [:])
        #expect(try read(" \n\t") == [:])
    }

    @Test func laterDuplicateKeyWins() throws {
        let value = try read("{ a = 1; b = 2; a = 3; }")
        #expect(value == ["a": "3", "b": "2"])
        #expect(value.dictionaryValue?.keys == ["a", "b"])
    }

    @Test func byteOrderMarksAndUTF16() throws {
        let text = "{ key = \"välue 😀\"; }"
        let expected: PropertyListValue = ["key": "välue 😀"]
        #expect(try read([0xEF, 0xBB, 0xBF] + Array(text.utf8)) == expected)
        let units = Array(text.utf16)
        let littleEndian: [UInt8] = [0xFF, 0xFE] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let bigEndian: [UInt8] = [0xFE, 0xFF] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(try read(littleEndian) == expected)
        #expect(try read(bigEndian) == expected)
        // Through the format-detecting entry point too.
        #expect(try PropertyListReader().read(littleEndian) == expected)
    }

    // MARK: Malformed input, one kind per case

    static let malformed: [Malformed] = [
        Malformed("entry without ';'", "{ a = b }", .syntaxError, column: 9),
        Malformed("array without ','", "(a b)", .syntaxError, column: 4),
        Malformed("array with an empty element", "(a,,)", .syntaxError, column: 4),
        Malformed("array of only a comma", "(,)", .syntaxError, column: 2),
        Malformed("dictionary key missing", "{\n  = b; }", .syntaxError, line: 2, column: 3),
        Malformed("dictionary key not a string", "{ (a) = b; }", .syntaxError, column: 3),
        Malformed("dictionary value missing", "{ a = ; }", .syntaxError, column: 7),
        Malformed("neither '=' nor ';' after key", "{ a b; }", .syntaxError, column: 5),
        Malformed("character outside the unquoted set", "(a, +b)", .syntaxError, column: 5),
        Malformed("unterminated quoted string", "(\n\"abc", .truncated, line: 2, column: 1),
        Malformed("backslash at end of input", "\"abc\\", .truncated, column: 1),
        Malformed("unterminated array", "(a,", .truncated, column: 4),
        Malformed("unterminated dictionary", "{ a = b;", .truncated, column: 9),
        Malformed("dictionary ends after '='", "{ a =", .truncated, column: 6),
        Malformed("unterminated data", "<0fbd", .truncated, column: 1),
        // CoreFoundation reads a comment that is never closed as white space, so a file cut
        // inside its first comment is an empty dictionary there; we refuse it (policy).
        Malformed("unterminated comment", "/* a = b;", .truncated, column: 1, foundationAccepts: true),
        Malformed("unterminated comment after a value", "(a) /* b", .truncated, column: 5, foundationAccepts: true),
        Malformed("data with a split byte", "<0 f>", .syntaxError, column: 3),
        Malformed("data with a non-hex character", "<0g>", .syntaxError, column: 3),
        Malformed("data with a vertical tab", "<0f\u{0B}bd>", .syntaxError, column: 4),
        Malformed("junk after the top-level value", "(a)\n}", .syntaxError, line: 2, column: 1),
        Malformed("lone slash after the top-level value", "(a)/", .syntaxError, column: 4),
        Malformed("invalid UTF-8 in a quoted string", [0x28, 0x22, 0x61, 0xFF, 0x22, 0x29], .invalidString, column: 2),
        Malformed("invalid UTF-8 in a comment", [0x2F, 0x2F, 0xC3, 0x0A, 0x61], .invalidString, column: 1),
        Malformed("non-ASCII outside quotes", "(é)", .syntaxError, column: 2),
        Malformed("NUL byte outside quotes", [0x61, 0x00, 0x3D, 0x62, 0x3B], .syntaxError, column: 2),
        Malformed("empty input", [], .truncated, column: 1),
        Malformed("byte-order mark only", [0xEF, 0xBB, 0xBF], .truncated, column: 4),
        // CoreFoundation drops a dangling byte and keeps a lone surrogate (U+FFFD in Swift);
        // a broken encoding is corruption to us, as invalid UTF-8 is to both.
        Malformed(
            "UTF-16 with an odd byte count", [0xFF, 0xFE, 0x61, 0x00, 0x62], .invalidString, line: 0, column: 0,
            foundationAccepts: true),
        Malformed(
            "UTF-16 with a lone surrogate", [0xFF, 0xFE, 0x22, 0x00, 0x00, 0xD8, 0x22, 0x00], .invalidString, line: 0,
            column: 0, foundationAccepts: true),
    ]

    // CoreFoundation's parsePlistDictContent ends a .strings file at the first text after
    // a pair that cannot start a key, keeping the pairs before it (a merge once appended
    // an XML plist after the last pair). A key followed by junk still fails there.
    @Test(arguments: [
        ("a = b;\n} c = d;", 2, 1),
        ("\"greeting\" = \"Hello\";\n\"farewell\" = \"Bye\";\n<?xml version=\"1.0\"?>\n<plist><dict/></plist>\n", 3, 1),
        ("/* a comment */ a = b; @", 1, 24),
    ])
    func textAfterTheLastPairOfAStringsFileIsIgnoredWithAWarning(_ text: String, line: Int, column: Int) throws {
        let (value, format, warnings) = try PropertyListReader().readWithWarnings(Array(text.utf8))
        #expect(format == .openStep)
        #expect(value["a"] == "b" || value["greeting"] == "Hello")
        #expect(warnings.map(\.line) == [line])
        #expect(warnings.first?.column == column)
        #expect(foundationRead(Array(text.utf8)) == value, "Foundation reads the same pairs")
    }

    @Test func keyFollowedByJunkAtTheEndOfAStringsFileIsStillAnError() throws {
        let error = #expect(throws: PropertyListError.self) { try read("a = b;\nc }") }
        #expect(error?.code == .syntaxError)
        #expect(foundationRead(Array("a = b;\nc }".utf8)) == nil, "Foundation refuses it too")
    }

    @Test(arguments: malformed)
    func malformedInputIsRejected(_ input: Malformed) throws {
        let error = #expect(throws: PropertyListError.self) { try read(input.bytes) }
        #expect(error?.code == input.code)
        if input.line > 0 {
            #expect(error?.line == input.line)
            #expect(error?.column == input.column)
        }
        if !input.foundationAccepts {
            #expect(
                foundationRead(input.bytes) == nil, "Foundation accepts it, so rejecting it is a policy to document")
        }
    }

    // MARK: Limits

    @Test func deepNestingStopsAtMaxDepthWithoutRecursion() throws {
        let deep = [UInt8](repeating: UInt8(ascii: "("), count: 100_000)
        let error = #expect(throws: PropertyListError.self) { try read(deep) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.column == PropertyListLimits.default.maxDepth + 1)
        // With the bound lifted the parser keeps its own stack: the input is simply cut short.
        let unbounded = PropertyListLimits(maxDepth: .max)
        let truncated = #expect(throws: PropertyListError.self) { try read(deep, limits: unbounded) }
        #expect(truncated?.code == .truncated)
        #expect(try read("((((a))))", limits: PropertyListLimits(maxDepth: 4)) == [[[["a"]]]])
        #expect(throws: PropertyListError.self) { try read("((((a))))", limits: PropertyListLimits(maxDepth: 3)) }
        #expect(throws: PropertyListError.self) { try read("a = b;", limits: PropertyListLimits(maxDepth: 0)) }
    }

    @Test func objectCountLimit() throws {
        // An array and three strings are four values; a key is one more.
        #expect(try read("(a, b, c)", limits: PropertyListLimits(maxObjectCount: 4)) == ["a", "b", "c"])
        let error = #expect(throws: PropertyListError.self) {
            try read("(a, b, c)", limits: PropertyListLimits(maxObjectCount: 3))
        }
        #expect(error?.code == .limitExceeded)
        #expect(throws: PropertyListError.self) { try read("{k = v;}", limits: PropertyListLimits(maxObjectCount: 2)) }
    }

    @Test func byteCountLimit() throws {
        #expect(
            try read("(abc, <0102>)", limits: PropertyListLimits(maxByteCount: 5)) == ["abc", .data(Data([1, 2]))])
        let strings = #expect(throws: PropertyListError.self) {
            try read("(abc, \"def\")", limits: PropertyListLimits(maxByteCount: 5))
        }
        #expect(strings?.code == .limitExceeded)
        let data = #expect(throws: PropertyListError.self) {
            try read("(abc, <010203>)", limits: PropertyListLimits(maxByteCount: 5))
        }
        #expect(data?.code == .limitExceeded)
    }

    // MARK: Writer

    @Test func writerLayout() throws {
        let value: PropertyListValue = [
            "name": "Spork", "tags": ["kitchen", "rusty one"],
            "photo": .data(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A])),
            "empty": [], "none": [:],
        ]
        let expected =
            "{\n\tname = Spork;\n\ttags = (\n\t\tkitchen,\n\t\t\"rusty one\"\n\t);\n\tphoto = <89504e47 0d0a>;\n\tempty = ();\n\tnone = {};\n}\n"
        #expect(String(decoding: try OpenStepPropertyListWriter.write(value), as: UTF8.self) == expected)
    }

    @Test(arguments: [
        "", "plain", "with space", "semi;colon", "a//b", "/usr/bin", "//", "quote\"and\\slash", "'single'",
        "tab\tnew\nline\rcr", "\u{0}\u{1}\u{7F}", "ünïcödé 日本語 😀", "\u{2028}", "a=b", "{}", "()", "<00>", "-", "+",
    ])
    func stringsRoundTripThroughBothReaders(_ string: String) throws {
        let value: PropertyListValue = ["key \(string)": [.string(string)]]
        let written = try OpenStepPropertyListWriter.write(value)
        #expect(try read(written) == value)
        #expect(
            foundationRead(written) == value, "Foundation reads \(String(decoding: written, as: UTF8.self)) differently"
        )
    }

    @Test func writerRejectsTypesTheFormatLacksWithTheirKeyPath() throws {
        let record: PropertyListValue = ["name": "Spork", "count": 3]
        let value: PropertyListValue = ["items": ["a", "b", "c", record]]
        let error = #expect(throws: PropertyListError.self) { try OpenStepPropertyListWriter.write(value) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath == "items[3].count")
        for scalar: PropertyListValue in [
            1, .unsignedInteger(.max), 1.5, .float(2), true, .date(Date()), .uid(PropertyListUID(1)),
        ] {
            let error = #expect(throws: PropertyListError.self) { try OpenStepPropertyListWriter.write([scalar]) }
            #expect(error?.code == .unsupportedValue)
            #expect(error?.keyPath == "[0]")
        }
    }
}

/// Foundation's reading of `bytes` as a value, or `nil` when it rejects them. On Linux
/// this is CoreFoundation's old-style parser, the one our reader follows.
func foundationRead(_ bytes: [UInt8]) -> PropertyListValue? {
    guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) else {
        return nil
    }
    return foundationValue(object)
}

private func foundationValue(_ object: Any) -> PropertyListValue? {
    switch object {
    case let string as String:
        return .string(string)
    case let data as Data:
        return .data(data)
    case let array as [Any]:
        var values: [PropertyListValue] = []
        for element in array {
            guard let value = foundationValue(element) else { return nil }
            values.append(value)
        }
        return .array(values)
    case let dictionary as [String: Any]:
        var result = PropertyListDictionary()
        for (key, element) in dictionary {
            guard let value = foundationValue(element) else { return nil }
            result[key] = value
        }
        return .dictionary(result)
    default:
        return nil
    }
}
