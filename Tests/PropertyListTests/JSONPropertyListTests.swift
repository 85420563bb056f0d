import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// The JSON reader and writer, checked against libplist's reference renderings and,
/// for tricky inputs, against Python's `json` module as a peer.
struct JSONPropertyListTests: ReadsOneTextFormat {
    static let format = PropertyListFormat.json

    // MARK: Reference files

    @Test(.requiresCorpus) func int64ExtremesReadExactlyAndWriteBackByteForByte() throws {
        let bytes = try Corpus.bytes("plist/reference/libplist/int64_min_max.json")
        let value = try read(bytes)
        #expect(value == ["INT64_MIN": .integer(.min), "INT64_MAX": .integer(.max)])
        #expect(try write(value) == bytes)
    }

    @Test(.requiresCorpus) func nestedReferenceReadsAsWrittenAndWritesBackByteForByte() throws {
        let bytes = try Corpus.bytes("plist/reference/libplist/j1.json")
        // j1.json read by eye.
        let leaf: PropertyListValue = ["a": "yo", "b": [["c": -0.25]]]
        let middle: PropertyListValue = ["a": "yo", "b": [["c": 0.25], leaf]]
        let one: PropertyListValue = [1]
        let expected: PropertyListValue = [
            "test": [1, 1],
            "foo": [[-1337], one, one, one, [one, one, one, one, [one, one, one, one]]],
            "more": ["a": "yo", "b": [["c": 0.25], middle]],
        ]
        let value = try read(bytes)
        #expect(value == expected)
        #expect(try write(value) + [0x0A] == bytes)
    }

    @Test(.requiresCorpus) func unicodeReferenceReads() throws {
        let value = try read(try Corpus.bytes("plist/reference/libplist/j2.json"))
        #expect(value["Some Int"] == .integer(32_434_543_632))
        #expect(value["Boolean"] == false)
        #expect(value["Another Boolean"] == true)
        #expect(value["Keys & \"entities\""] == "hellow world & others <nodes> are \"fun!?'")
        #expect(value["Some String with Unicode entity"] == "Yeah check this: \u{1234} !!!")
        #expect(value["Some UTF8 strings"]?.arrayValue?.count == 9)
        #expect(try read(try write(value)) == value)
    }

    static let invalidFuzzInputs = Corpus.files(under: "plist/invalid/libplist-fuzz-crashes").filter {
        $0.contains("/jplist-")
    }

    @Test(arguments: invalidFuzzInputs)
    func fuzzerCrashInputIsRejected(_ path: String) throws {
        let bytes = try Corpus.bytes(path)
        #expect(throws: PropertyListError.self) { try read(bytes) }
        #expect(throws: PropertyListError.self) { try PropertyListReader().read(bytes) }
    }

    @Test(.requiresCorpus) func fuzzerEdgeInputsHaveTheirDocumentedOutcome() throws {
        let folder = "plist/edge/libplist-fuzz-crashes/jplist-crashes__clusterfuzz-testcase-minimized-jplist_fuzzer-"
        // "3": a top-level scalar is valid JSON.
        #expect(try read(try Corpus.bytes(folder + "5486807695884288")) == 3)
        // "-": a number cut short.
        let error = #expect(throws: PropertyListError.self) { try read(try Corpus.bytes(folder + "6639076466360320")) }
        #expect(error?.code == .truncated)
    }

    // MARK: Python's json module as a peer

    /// Inputs where JSON readers commonly go wrong.
    static let trickyInputs: [[UInt8]] = {
        let texts = [
            "0", "-0", "-0.0", "1", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
            "-9223372036854775809", "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
            "1" + String(repeating: "0", count: 400), "1e400", "-1e400", "1e-400", "1e999999999999", "0.1",
            "1.7976931348623157e308",
            "1.7976931348623159e308", "4.9e-324", "2e-324", "2.2250738585072011e-308", "2.2250738585072012e-308",
            "9007199254740993", "9007199254740993.0", "1.00000000000000011102230246251565404236316680908203125",
            "1E2", "1e+2", "1.5e-3", "0.30000000000000004", "01", "-01", "00", "1.", ".5", "+1", "-", "1e", "1e+",
            "1.e5",
            "0x10", "NaN", "Infinity", "-Infinity", "1 2", "",
            #""""#, #""\u0000""#, #""\ud83d\ude00""#, #""\uD83D""#, #""\ude00""#, #""\ud83d\u0041""#, #""\ud83dx""#,
            #""\ud83d\ud83d\ude00""#, #""\/""#, #""\b\f\n\r\t\"\\""#, #""\x""#, #""\u12""#, #""\u12G4""#, #""\U0041""#,
            "\"tab\there\"", "\"del\u{7F}\"", "\"é日本😀\"", "\"\u{2028}\"", #""abc"#, #""\"#, "'single'",
            "[]", "{}", "[1,]", #"{"a":1,}"#, "[,1]", #"{"a" 1}"#, #"{"a":}"#, "{1:2}", "{'a':1}", #"{"a":1,"a":2}"#,
            #"{"a":1,"b":2,"a":3}"#, "[[[]]]", " \t\r\n[ 1 , 2 ]\n", "[1 2]", "[1,,2]", #"{"a":1 "b":2}"#, "[", "]",
            "[1",
            #"{"a""#, #"{"a":1"#, "[true,false]", "[tru]", "truex", "[null]", "null", #"{"a":null}"#, "nul",
            "// c\n1", "/* c */ 1", "\u{0B}1", "\u{0C}1", "1\u{A0}", "[1]x", #"{"":""}"#, #"{"a":{"b":{"c":[{}]}}}"#,
        ]
        var inputs = texts.map { Array($0.utf8) }
        inputs += [
            [0xEF, 0xBB, 0xBF] + Array("[1]".utf8),  // UTF-8 byte-order mark
            Array("[\"a".utf8) + [0xFF] + Array("\"]".utf8),  // invalid UTF-8
            Array("[\"a".utf8) + [0xC0, 0xAF] + Array("\"]".utf8),  // overlong encoding
            Array("[\"a".utf8) + [0xED, 0xA0, 0x80] + Array("\"]".utf8),  // encoded surrogate
            Array("[\"a".utf8) + [0xE6, 0x97] + Array("\"]".utf8),  // truncated sequence
            Array("[\"ab".utf8) + [0x00] + Array("\"]".utf8),  // raw NUL
        ]
        return inputs
    }()

    @Test(.enabled(if: Python.executable != nil, "python3 is not installed: no peer to compare with"))
    func readerAgreesWithPythonsJSONModule() throws {
        let fuzzInputs = try Self.invalidFuzzInputs.map { try Corpus.bytes($0) }
        let inputs = Self.trickyInputs + fuzzInputs
        let script = #"""
            import json, struct, sys
            class Refused(Exception):
                def __init__(self, kind): self.kind = kind
            def constant(name): raise ValueError(name)
            def canon(v):
                if v is None: raise Refused("null")
                if isinstance(v, bool): return "b:" + ("1" if v else "0")
                if isinstance(v, int):
                    if -2**63 <= v < 2**64: return "i:%d" % v
                    try: v = float(v)
                    except OverflowError: raise Refused("range")
                if isinstance(v, float):
                    if v != v or v in (float("inf"), float("-inf")): raise Refused("range")
                    return "r:%d" % struct.unpack("<Q", struct.pack("<d", v))[0]
                if isinstance(v, str): return "s:" + utf8(v)
                if isinstance(v, list): return "[" + ",".join(canon(x) for x in v) + "]"
                return "{" + ",".join(utf8(k) + "=" + canon(x) for k, x in v.items()) + "}"
            def utf8(s):
                try: return s.encode("utf-8").hex()
                except UnicodeEncodeError: raise Refused("string")
            for line in sys.stdin:
                try:
                    print(canon(json.loads(bytes.fromhex(line.strip()), parse_constant=constant)))
                except Refused as refused: print("ERR:" + refused.kind)
                except UnicodeDecodeError: print("ERR:string")
                except (ValueError, RecursionError): print("ERR:syntax")
            """#
        let input = inputs.map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n") + "\n"
        let output = try Python.text(script, input: input)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        try #require(lines.count == inputs.count)
        for (index, (bytes, python)) in zip(inputs, lines).enumerated() {
            let label = String(decoding: bytes.prefix(60), as: UTF8.self)
            // Python decodes a whole fuzz file before parsing it, so its first complaint
            // may be the encoding where ours is the grammar: both must only refuse.
            let isFuzzInput = index >= Self.trickyInputs.count
            do {
                let ours = canonical(try read(bytes))
                #expect(ours == String(python), "\(label): we read \(ours), Python \(python)")
            } catch {
                let expected: Set<PropertyListError.Code> =
                    switch python {
                    case "ERR:syntax": [.syntaxError, .truncated]
                    case "ERR:string": [.invalidString]
                    case "ERR:null", "ERR:range": [.invalidObject]
                    default: []
                    }
                #expect(
                    isFuzzInput ? python.hasPrefix("ERR:") : expected.contains(error.code),
                    "\(label): we fail with \(error), Python reads \(python)")
            }
        }
    }

    @Test(.enabled(if: Python.executable != nil, "python3 is not installed: no peer to compare with"))
    func writerOutputIsWhatPythonWouldWrite() throws {
        let value: PropertyListValue = [
            "zeta":
                "quote\" backslash\\ slash/ controls\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F} del\u{7F} ünï 😀 \u{2028}",
            "alpha": [0, -1, .integer(.min), .integer(.max), .unsignedInteger(.max), true, false],
            "Reals": [
                0.1, -0.0, 1e-05, 1e16, 1e15, 123456789.125, .real(.leastNonzeroMagnitude), 1.7976931348623157e308,
                2.5e-7, .float(0.1),
            ],
            "émile": ["nested": [:], "list": []],
            "": "empty key",
        ]
        let script = #"""
            import json, sys
            text = sys.stdin.buffer.read().decode("utf-8")
            compact, ordered, pretty = text.split("\x1e")
            dump = lambda s, **kw: json.dumps(json.loads(s), ensure_ascii=False, **kw)
            print(dump(compact, separators=(",", ":")) == compact)
            print(dump(ordered, separators=(",", ":"), sort_keys=True) == ordered)
            print(dump(pretty, indent=2, separators=(",", " : "), sort_keys=True) + "\n" == pretty)
            """#
        let compact = try write(value)
        let sorted = try write(value, JSONWritingOptions(sortedKeys: true))
        let pretty = try write(value, JSONWritingOptions(prettyPrinted: true, sortedKeys: true))
        let input = String(decoding: compact + [0x1E] + sorted + [0x1E] + pretty, as: UTF8.self)
        let output = try Python.text(script, input: input)
        #expect(output == "True\nTrue\nTrue\n", "compact, sorted, pretty: \(output)")
        for bytes in [compact, sorted, pretty] {
            #expect(try read(bytes) == value)
        }
    }

    // MARK: Constructs

    /// Strings are escaped eight bytes at a time where none needs it: every byte that
    /// does (a quote, a backslash, a control character), at every position around a word,
    /// in text of every length up to three words, is escaped as a byte-by-byte escaper
    /// escapes it, and integers are their decimal digits.
    @Test func stringsEscapeAsByteByByteAtEveryPosition() {
        func reference(_ bytes: [UInt8]) -> [UInt8] {
            var output: [UInt8] = [UInt8(ascii: "\"")]
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): output += Array(#"\""#.utf8)
                case UInt8(ascii: "\\"): output += Array(#"\\"#.utf8)
                case 0x08: output += Array(#"\b"#.utf8)
                case 0x09: output += Array(#"\t"#.utf8)
                case 0x0A: output += Array(#"\n"#.utf8)
                case 0x0C: output += Array(#"\f"#.utf8)
                case 0x0D: output += Array(#"\r"#.utf8)
                case ..<0x20: output += Array(String(format: "\\u%04x", byte).utf8)
                default: output.append(byte)
                }
            }
            return output + [UInt8(ascii: "\"")]
        }
        let special: [UInt8] = [0x22, 0x5C, 0x00, 0x08, 0x0A, 0x1F, 0x7F, 0xC3, 0xA9, 0x20, 0x21, 0x5B, 0x5D]
        for length in 0...24 {
            for position in 0..<max(length, 1) {
                for byte in special {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    if length > 0 { bytes[position] = byte }
                    var written: [UInt8] = []
                    bytes.withUnsafeBytes { JSONString.append(utf8: $0, into: &written) }
                    #expect(written == reference(bytes), "\(bytes)")
                }
            }
        }
        for value in [Int64.min, -1, 0, 7, 10, 1_234_567_890, .max] {
            var written: [UInt8] = []
            JSONString.appendDecimal(value, into: &written)
            #expect(String(decoding: written, as: UTF8.self) == String(value))
        }
        var unsigned: [UInt8] = []
        JSONString.appendDecimal(UInt64.max, into: &unsigned)
        #expect(String(decoding: unsigned, as: UTF8.self) == String(UInt64.max))
    }

    @Test func scalarsAndContainers() throws {
        let value = try read(
            #" {"s": "x", "i": -42, "u": 18446744073709551615, "r": 2.5e3, "t": true, "f": false, "a": [], "o": {}} "#)
        #expect(
            value == [
                "s": "x", "i": -42, "u": .unsignedInteger(.max), "r": 2500.0, "t": true, "f": false, "a": [], "o": [:],
            ])
        #expect(value.dictionaryValue?.keys == ["s", "i", "u", "r", "t", "f", "a", "o"])
        // A number with a fraction or exponent is a real even when whole.
        #expect(try read("[1.0, 1e0]") == [.real(1), .real(1)])
        #expect(try read("[1.0]") != [1])
    }

    @Test func integersBeyondSixtyFourBitsBecomeReals() throws {
        // 2^64 and -(2^63 + 1), the latter rounded to the nearest Double, -2^63.
        #expect(try read("18446744073709551616") == .real(0x1p64))
        #expect(try read("-9223372036854775809") == .real(-0x1p63))
        #expect(try read("-9223372036854775808") == .integer(.min))
    }

    @Test func escapes() throws {
        #expect(try read(#""\"\\\/\b\f\n\r\t""#) == "\"\\/\u{8}\u{C}\n\r\t")
        #expect(try read(#""\u00e9\u65E5\ud83d\ude00\u0000""#) == "é日😀\u{0}")
    }

    @Test func laterDuplicateKeyWinsInTheEarlierPosition() throws {
        let value = try read(#"{"a": 1, "b": 2, "a": 3}"#)
        #expect(value == ["a": 3, "b": 2])
        #expect(value.dictionaryValue?.keys == ["a", "b"])
    }

    @Test func uidDictionaryStaysADictionary() throws {
        #expect(try read(#"{"CF$UID": 7}"#) == ["CF$UID": 7])
    }

    // MARK: Malformed input, one kind per case

    static let malformed: [Malformed] = [
        Malformed("empty input", "", .truncated, column: 1),
        Malformed("only white space", " \n ", .truncated, line: 2, column: 2),
        Malformed("trailing comma in an array", "[1,\n2,\n]", .syntaxError, line: 3, column: 1),
        Malformed("trailing comma in an object", #"{"a":1,}"#, .syntaxError, column: 8),
        Malformed("missing comma", "[1 2]", .syntaxError, column: 4),
        Malformed("missing colon", #"{"a" 1}"#, .syntaxError, column: 6),
        Malformed("non-string key", "{1:2}", .syntaxError, column: 2),
        Malformed("single-quoted string", "['a']", .syntaxError, column: 2),
        Malformed("comment", "// c\n1", .syntaxError, column: 1),
        Malformed("NaN", "[NaN]", .syntaxError, column: 2),
        Malformed("misspelt literal", "[tru]", .syntaxError, column: 2),
        Malformed("literal cut short", "tru", .truncated, column: 4),
        Malformed("leading zero", "[01]", .syntaxError, column: 2),
        Malformed("fraction without digits", "1.x", .syntaxError, column: 3),
        Malformed("exponent without digits", "1e", .truncated, column: 3),
        Malformed("plus sign", "+1", .syntaxError, column: 1),
        Malformed("number too large for a Double", "[1e400]", .invalidObject, column: 2),
        Malformed("null", #"{"a":\#n null}"#, .invalidObject, line: 2, column: 2),
        Malformed("unknown escape", #""a\x""#, .syntaxError, column: 3),
        Malformed("short \\u escape", #""\u12""#, .syntaxError, column: 6),
        Malformed("lone lead surrogate", #""x\ud83d""#, .invalidString, column: 3),
        Malformed("lone trail surrogate", #""\ude00""#, .invalidString, column: 2),
        Malformed("lead surrogate before a non-surrogate", #""\ud83d\u0041""#, .invalidString, column: 2),
        Malformed("raw control character", "\"a\tb\"", .syntaxError, column: 3),
        Malformed("invalid UTF-8", [0x5B, 0x22, 0xFF, 0x22, 0x5D], .invalidString, column: 2),
        Malformed("unterminated string", "[\"abc", .truncated, column: 2),
        Malformed("unterminated array", "[1, [2]", .truncated, column: 8),
        Malformed("unterminated object", #"{"a": 1"#, .truncated, column: 8),
        Malformed("junk after the value", "{} x", .syntaxError, column: 4),
        Malformed("vertical tab is not white space", "\u{0B}1", .syntaxError, column: 1),
    ]

    @Test(arguments: malformed)
    func malformedInputIsRejected(_ input: Malformed) throws {
        let error = #expect(throws: PropertyListError.self) { try read(input.bytes) }
        #expect(error?.code == input.code)
        #expect(error?.line == input.line)
        #expect(error?.column == input.column)
    }

    // MARK: Limits

    @Test func deepNestingStopsAtMaxDepthWithoutRecursion() throws {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = #expect(throws: PropertyListError.self) { try read(deep) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.column == PropertyListLimits.default.maxDepth + 1)
        let truncated = #expect(throws: PropertyListError.self) {
            try read(deep, limits: PropertyListLimits(maxDepth: .max))
        }
        #expect(truncated?.code == .truncated)
        #expect(try read("[[[1]]]", limits: PropertyListLimits(maxDepth: 3)) == [[[1]]])
        #expect(throws: PropertyListError.self) { try read(#"[{"a":[1]}]"#, limits: PropertyListLimits(maxDepth: 2)) }
    }

    @Test func objectAndByteCountLimits() throws {
        // The object, its key, the array and its two numbers: five values.
        #expect(try read(#"{"k":[1,2]}"#, limits: PropertyListLimits(maxObjectCount: 5)) == ["k": [1, 2]])
        let objects = #expect(throws: PropertyListError.self) {
            try read(#"{"k":[1,2]}"#, limits: PropertyListLimits(maxObjectCount: 4))
        }
        #expect(objects?.code == .limitExceeded)
        #expect(try read(#"{"ab":"cde"}"#, limits: PropertyListLimits(maxByteCount: 5)) == ["ab": "cde"])
        let bytes = #expect(throws: PropertyListError.self) {
            try read(#"{"ab":"cdef"}"#, limits: PropertyListLimits(maxByteCount: 5))
        }
        #expect(bytes?.code == .limitExceeded)
    }

    // MARK: Writer

    @Test func compactAndPrettyLayouts() throws {
        let value: PropertyListValue = ["b": [1, "two"], "a": [:], "c": []]
        #expect(String(decoding: try write(value), as: UTF8.self) == #"{"b":[1,"two"],"a":{},"c":[]}"#)
        let pretty = String(decoding: try write(value, JSONWritingOptions(prettyPrinted: true)), as: UTF8.self)
        #expect(pretty == "{\n  \"b\" : [\n    1,\n    \"two\"\n  ],\n  \"a\" : {},\n  \"c\" : []\n}\n")
        let sorted = String(decoding: try write(value, JSONWritingOptions(sortedKeys: true)), as: UTF8.self)
        #expect(sorted == #"{"a":{},"b":[1,"two"],"c":[]}"#)
    }

    @Test(arguments: [
        0.1, -0.0, 1.0 / 3, 1e-7, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, 0x1p53 + 2,
        1e16, -123.456e-78,
    ])
    func realsRoundTripExactly(_ real: Double) throws {
        let back = try read(try write([.real(real)]))
        #expect(back.arrayValue?.first?.doubleValue?.bitPattern == real.bitPattern)
    }

    @Test func floatsAreWidenedSoTheirValueSurvives() throws {
        #expect(try read(try write(.float(0.1))) == .float(0.1))
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteRealsAreRefused(_ real: Double) throws {
        let error = #expect(throws: PropertyListError.self) { try write(["x": [.real(real)]]) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath == "x[0]")
    }

    @Test func dataDatesAndUIDsAreRefusedByDefaultWithTheirKeyPath() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        for (value, kind) in [
            (PropertyListValue.data(Data([1])), "data"), (.date(date), "date"), (.uid(PropertyListUID(3)), "UID"),
        ] {
            let error = #expect(throws: PropertyListError.self) { try write(["items": [1, ["v": value]]]) }
            #expect(error?.code == .unsupportedValue)
            #expect(error?.keyPath == "items[1].v")
            #expect(error?.message.contains(kind) == true)
        }
    }

    @Test func dataDatesAndUIDsRenderAsOptionsSay() throws {
        let value: PropertyListValue = [
            .data(Data("hello".utf8)), .date(Date(timeIntervalSince1970: 1_700_000_000.5)), .uid(PropertyListUID(3)),
        ]
        let iso = JSONWritingOptions(data: .base64, date: .iso8601, uid: .dictionary)
        #expect(
            String(decoding: try write(value, iso), as: UTF8.self)
                == #"["aGVsbG8=","2023-11-14T22:13:20Z",{"CF$UID":3}]"#)
        let seconds = JSONWritingOptions(data: .base64, date: .secondsSince1970, uid: .dictionary)
        #expect(
            String(decoding: try write(value, seconds), as: UTF8.self) == #"["aGVsbG8=",1700000000.5,{"CF$UID":3}]"#)
    }

    // MARK: UTF-8 validation shared by the text readers

    @Test func utf8ValidationAgreesWithTheStandardLibrary() {
        var candidates: [[UInt8]] = []
        for first in 0...255 {
            candidates.append([UInt8(first)])
            for second in 0...255 { candidates.append([UInt8(first), UInt8(second)]) }
        }
        let edges: [UInt8] = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0]
        // Every second byte after each three- and four-byte lead, with the boundary values
        // of the continuation ranges after it.
        for lead in UInt8(0xE0)...0xF5 {
            for second in 0...255 {
                for third in edges {
                    candidates.append([lead, UInt8(second), third])
                    guard lead >= 0xF0 else { continue }
                    for fourth in edges { candidates.append([lead, UInt8(second), third, fourth]) }
                }
            }
        }
        var disagreements: [[UInt8]] = []
        for bytes in candidates {
            let ours = bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
            if ours != (String(validating: bytes, as: UTF8.self) != nil) { disagreements.append(bytes) }
        }
        #expect(disagreements.isEmpty, "first: \(disagreements.prefix(5))")
    }

    // MARK: Helpers

    private func write(_ value: PropertyListValue, _ options: JSONWritingOptions = .init()) throws(PropertyListError)
        -> [UInt8]
    {
        try PropertyListWriter(format: .json, jsonOptions: options).write(value)
    }

    /// The same canonical text the Python script prints for a value.
    private func canonical(_ value: PropertyListValue) -> String {
        let hex = { (text: String) in text.utf8.map { String(format: "%02x", $0) }.joined() }
        switch value {
        case .string(let string): return "s:" + hex(string)
        case .integer(let integer): return "i:\(integer)"
        case .unsignedInteger(let integer): return "i:\(integer)"
        case .real(let real): return "r:\(real.bitPattern)"
        case .bool(let bool): return bool ? "b:1" : "b:0"
        case .array(let array): return "[" + array.map(canonical).joined(separator: ",") + "]"
        case .dictionary(let dictionary):
            return "{" + dictionary.map { hex($0.key) + "=" + canonical($0.value) }.joined(separator: ",") + "}"
        case .float, .date, .data, .uid: return "unexpected \(value.kindName)"
        }
    }
}
