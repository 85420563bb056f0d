import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// The XML writer against Python's `plistlib` and Core Foundation's layout rules.
struct XMLWriterTests {
    private static func write(_ value: PropertyListValue) throws(PropertyListError) -> String {
        String(decoding: try XMLPropertyListWriter.write(value), as: UTF8.self)
    }

    /// What `plistlib.dumps(value, fmt=FMT_XML, sort_keys=False)` writes for the Python
    /// expression `expression`.
    private static func plistlibOutput(for expression: String) throws -> String {
        let script = """
            import datetime, plistlib, sys
            value = \(expression)
            sys.stdout.buffer.write(plistlib.dumps(value, fmt=plistlib.FMT_XML, sort_keys=False))
            """
        return try Python.text(script)
    }

    /// Data of `count` bytes 0, 1, 2… in Swift and in Python.
    private static func bytes(_ count: Int) -> (PropertyListValue, String) {
        (
            .data(Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) })),
            "bytes((i * 37) % 256 for i in range(\(count)))"
        )
    }

    /// A value with every type the two writers share, and the same value in Python. UIDs
    /// are given to Python as the `{"CF$UID": n}` dictionaries Core Foundation writes.
    @Test(.enabled(if: Python.canImport("plistlib"), "python3 with plistlib is not installed"))
    func writesWhatPlistlibWrites() throws {
        let (data0, py0) = Self.bytes(0)
        let (data1, py1) = Self.bytes(1)
        let (data2, py2) = Self.bytes(2)
        let (data51, py51) = Self.bytes(51)
        let (data52, py52) = Self.bytes(52)
        let (data300, py300) = Self.bytes(300)
        // Data seven levels deep, the deepest where plistlib and Core Foundation still
        // wrap base64 alike.
        var deep: PropertyListValue = ["deep": data300]
        var pythonDeep = "{'deep': \(py300)}"
        for _ in 0..<5 {
            deep = [deep, data52]
            pythonDeep = "[\(pythonDeep), \(py52)]"
        }
        let value: PropertyListValue = [
            "plain": "Homepwner",
            "escaped": "<tag attr=\"x\"> & 'y' ]]> &amp;",
            "unicode": "Grüße, 東京, 😀, \u{7F}",
            "whitespace": " tab\there\nnewline ",
            "": "",
            "key & <escaped>": true,
            "false": false,
            "zero": 0,
            "negative": -42,
            "int64 extremes": [.integer(.max), .integer(.min)],
            "uint64 max": .unsignedInteger(.max),
            "reals": [
                0.5, 0.1, -2.75, 1e-7, 1e16, 123456789.0, -0.0, 100.0, 1.7976931348623157e308,
                .real(.leastNonzeroMagnitude), .real(1.0 / 3),
            ],
            "float": .float(0.5),
            "dates": [
                .date(Date(timeIntervalSince1970: 1_714_566_600)), .date(Date(timeIntervalSince1970: -3_187_007_008)),
            ],
            "data": [data0, data1, data2, data51, data52, data300],
            "empty": [[], [:]],
            "uid": .uid(PropertyListUID(7)),
            "nested": deep,
        ]
        let python = """
            {
                'plain': 'Homepwner',
                'escaped': '<tag attr="x"> & \\'y\\' ]]> &amp;',
                'unicode': 'Grüße, 東京, 😀, \\x7f',
                'whitespace': ' tab\\there\\nnewline ',
                '': '',
                'key & <escaped>': True,
                'false': False,
                'zero': 0,
                'negative': -42,
                'int64 extremes': [2**63 - 1, -2**63],
                'uint64 max': 2**64 - 1,
                'reals': [0.5, 0.1, -2.75, 1e-7, 1e16, 123456789.0, -0.0, 100.0, 1.7976931348623157e308, 5e-324, 1.0 / 3],
                'float': 0.5,
                'dates': [datetime.datetime(2024, 5, 1, 12, 30), datetime.datetime(1869, 1, 3, 8, 16, 32)],
                'data': [\(py0), \(py1), \(py2), \(py51), \(py52), \(py300)],
                'empty': [[], {}],
                'uid': {'CF$UID': 7},
                'nested': \(pythonDeep),
            }
            """
        let expected = try Self.plistlibOutput(for: python)
        let written = try Self.write(value)
        #expect(written == expected)
        if written != expected {
            for (ours, theirs) in zip(written.split(separator: "\n"), expected.split(separator: "\n"))
            where ours != theirs {
                Issue.record(
                    "first difference: wrote \(ours.debugDescription), plistlib wrote \(theirs.debugDescription)")
                break
            }
        }
    }

    @Test func capsTheIndentOfBase64LinesAtEightTabsAsCoreFoundationDoes() throws {
        // Core Foundation indents `<data>` lines by at most 8 tabs and shortens them to
        // 76 - 8 × 8 = 12 characters there; plistlib keeps 16 and indents further.
        let bytes = Data((0..<15).map { UInt8($0 * 17) })
        var value: PropertyListValue = .data(bytes)
        for _ in 0..<10 { value = [value] }
        let base64 = bytes.base64EncodedString()
        #expect(base64.count == 20)
        let tabs10 = String(repeating: "\t", count: 10)
        let tabs8 = String(repeating: "\t", count: 8)
        let expected =
            "\(tabs10)<data>\n\(tabs8)\(base64.prefix(12))\n\(tabs8)\(base64.dropFirst(12))\n\(tabs10)</data>\n"
        #expect(try Self.write(value).contains(expected))
    }

    @Test func spellsNonFiniteRealsAsCoreFoundationDoes() throws {
        let written = try Self.write([.real(.infinity), .real(-.infinity), .real(.nan), .float(-.infinity)])
        #expect(
            written.contains(
                "\t<real>+infinity</real>\n\t<real>-infinity</real>\n\t<real>nan</real>\n\t<real>-infinity</real>\n"))
    }

    @Test func writesFloatsAsTheDoubleTheyWidenTo() throws {
        let value: PropertyListValue = [.float(0.1), .float(.leastNonzeroMagnitude), .float(.greatestFiniteMagnitude)]
        let back = try XMLFixture.read(try XMLPropertyListWriter.write(value))
        #expect(back == value)
        #expect(back.arrayValue?.first == .real(Double(Float(0.1))))
    }

    @Test func realsReadBackToTheSameDouble() throws {
        // A fixed pseudo-random sweep over bit patterns, plus the awkward cases.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var reals: [Double] = [
            0.1, 0.2, 0.3, 1 / 3.0, 2 / 3.0, .pi, .ulpOfOne, .leastNormalMagnitude,
            .leastNonzeroMagnitude, .greatestFiniteMagnitude, 9_007_199_254_740_992, -0.0,
        ]
        while reals.count < 2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let real = Double(bitPattern: state)
            if real.isFinite { reals.append(real) }
        }
        let value = PropertyListValue.array(reals.map(PropertyListValue.real))
        let back = try XMLFixture.read(try XMLPropertyListWriter.write(value))
        for (original, read) in zip(reals, back.arrayValue ?? []) {
            #expect(read.doubleValue?.bitPattern == original.bitPattern, "\(original)")
        }
    }

    @Test("&, < and > are escaped wherever they fall, in strings and keys of every length up to 40")
    func escapesMarkupAtEveryPosition() throws {
        for length in 0...40 {
            for position in 0..<max(length, 1) {
                for special in ["&", "<", ">"] {
                    var characters = Array(repeating: "a", count: length)
                    if length > 0 { characters[position] = special }
                    // A second special byte eight places on, in the next word the writer loads.
                    if position + 8 < length { characters[position + 8] = "<" }
                    let text = characters.joined()
                    let escaped = text.replacingOccurrences(of: "&", with: "&amp;")
                        .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
                    let written = try Self.write(.dictionary([text: .string(text)]))
                    #expect(
                        written.contains("\t<key>\(escaped)</key>\n\t<string>\(escaped)</string>\n"),
                        "length \(length), \(special) at \(position)")
                    #expect(try PropertyListReader().read(Array(written.utf8)) == .dictionary([text: .string(text)]))
                }
            }
        }
    }

    @Test("a document whose escapes outgrow the size walk's count is written whole")
    func writesEscapesBeyondTheSizeEstimate() throws {
        let text = String(repeating: "<&>", count: 5_000)
        let written = try Self.write(["k": .string(text)])
        let escaped = String(repeating: "&lt;&amp;&gt;", count: 5_000)
        #expect(written.hasSuffix("\t<string>\(escaped)</string>\n</dict>\n</plist>\n"))
        #expect(try PropertyListReader().read(Array(written.utf8)) == ["k": .string(text)])
    }

    @Test("the size walk counts every byte the writer writes when there are no escapes, reals or dates")
    func sizeWalkCountsWhatTheWriterWrites() throws {
        let (data300, _) = Self.bytes(300)
        // Base64 lines at every indent up to past the cap of eight tabs.
        var deep: PropertyListValue = ["deep": data300, "n": 123_456_789]
        for level in 0..<10 {
            deep = [deep, .data(Data(count: level * 7 + 1)), .integer(Int64(-level) * 1_000_003)]
        }
        let value: PropertyListValue = [
            "plain": "Homepwner", "unicode": "Grüße, 東京, 😀", "": "", "yes": true, "no": false,
            "extremes": [.integer(.max), .integer(.min), .unsignedInteger(.max), 0, 9, 10],
            "empty": [[], [:]], "uids": [.uid(PropertyListUID(0)), .uid(PropertyListUID(4_000_000_000))],
            "deep": deep,
        ]
        let text = try Self.write(value)
        let header = try #require(text.range(of: "<plist version=\"1.0\">\n"))
        let body = text[header.upperBound...].utf8.count - "</plist>\n".utf8.count
        #expect(XMLDocumentSize.count(of: value, maxDepth: PropertyListLimits.default.maxDepth) == body)
    }

    @Test func keepsTheDictionarysKeyOrder() throws {
        var dictionary = PropertyListDictionary()
        for key in ["zeta", "alpha", "mu"] { dictionary[key] = .bool(true) }
        let written = try Self.write(.dictionary(dictionary))
        let keys = written.split(separator: "\n").filter { $0.contains("<key>") }
        #expect(keys == ["\t<key>zeta</key>", "\t<key>alpha</key>", "\t<key>mu</key>"])
    }

    @Test func writesControlCharactersRawAsCoreFoundationDoes() throws {
        // Real nibs hold ESC and other control characters as menu key equivalents.
        let value: PropertyListValue = ["items": [["name": "bell\u{7}"]], "esc\u{1B}key": "x\u{0}y\u{1F}"]
        let written = try XMLPropertyListWriter.write(value)
        #expect(String(decoding: written, as: UTF8.self).contains("<string>bell\u{7}</string>"))
        #expect(try XMLFixture.read(written) == value)
    }

    @Test(arguments: [Double.nan, .infinity, 1e300])
    func refusesDatesWithoutACalendarForm(_ seconds: Double) {
        let error = #expect(throws: PropertyListError.self) {
            try XMLPropertyListWriter.write(["when": .date(Date(timeIntervalSinceReferenceDate: seconds))])
        }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath == "when")
    }

    /// Years past four digits, and before year 0, are written as Core Foundation prints
    /// them (`%04d`: a minus sign counts in the width) and read back, as Core Foundation
    /// reads any run of year digits. Foundation's own XML writes the same text.
    @Test func writesAndReadsYearsOfAnyLengthAsCoreFoundationDoes() throws {
        let cases: [(seconds: Double, text: String)] = [
            (-452_716_041_600, "-12345-01-01T00:00:00Z"),
            (-63_303_292_800, "-005-01-01T00:00:00Z"),
            (-63_145_526_400, "0000-01-01T00:00:00Z"),
            (252_423_993_599, "9999-12-31T23:59:59Z"),
            (252_423_993_600, "10000-01-01T00:00:00Z"),
            (3_895_856_819_078_400, "123456789-01-01T00:00:00Z"),
        ]
        for (seconds, text) in cases {
            let value = PropertyListValue.date(Date(timeIntervalSinceReferenceDate: seconds))
            let written = try XMLPropertyListWriter.write(value)
            #expect(String(decoding: written, as: UTF8.self).contains("<date>\(text)</date>"), "\(seconds)")
            #expect(try XMLFixture.read(written) == value, "\(text)")
            let foundations = try PropertyListSerialization.data(
                fromPropertyList: [Date(timeIntervalSinceReferenceDate: seconds)], format: .xml, options: 0)
            #expect(String(decoding: foundations, as: UTF8.self).contains("<date>\(text)</date>"), "Foundation")
            #expect(try XMLFixture.read([UInt8](foundations)) == [value], "Foundation's \(text)")
        }
        // A year of one digit, as Core Foundation reads it; none, or eleven (more than any
        // date the writer writes), is malformed.
        #expect(
            try XMLFixture.read(XMLFixture.document("<date>5-01-01T00:00:00Z</date>"))
                == .date(Date(timeIntervalSinceReferenceDate: -62_987_673_600)))
        for text in ["-01-01T00:00:00Z", "12345678901-01-01T00:00:00Z"] {
            #expect(throws: PropertyListError.self, "\(text)") {
                try XMLFixture.read(XMLFixture.document("<date>\(text)</date>"))
            }
        }
    }

    @Test func roundTripsAValueWithEveryType() throws {
        let value: PropertyListValue = [
            "s": "a < b & c > d \r\n\t", "i": -7, "u": .unsignedInteger(.max), "r": 2.5, "f": .float(1.25),
            "b": false, "d": .date(Date(timeIntervalSinceReferenceDate: -12_345)), "x": .data(Data([0, 255, 7])),
            "a": [[], [:], [.uid(PropertyListUID(0)), .uid(PropertyListUID(UInt64(UInt32.max) + 1))]],
        ]
        #expect(try XMLFixture.read(try XMLPropertyListWriter.write(value)) == value)
    }
}
