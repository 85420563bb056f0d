import Foundation
import Testing

@testable import PropertyList

/// Helpers shared by the XML test suites.
enum XMLFixture {
    static func read(_ text: String, limits: PropertyListLimits = .default) throws(PropertyListError)
        -> PropertyListValue
    {
        try read(Array(text.utf8), limits: limits)
    }

    static func read(_ bytes: [UInt8], limits: PropertyListLimits = .default) throws(PropertyListError)
        -> PropertyListValue
    {
        try bytes.withUnsafeBufferPointer { (buffer) throws(PropertyListError) in
            try XMLPropertyListReader.read(buffer, limits: limits)
        }
    }

    /// `body` inside Apple's header, DOCTYPE and `<plist>` element.
    static func document(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>

        """
    }

    /// Reads `body` wrapped by ``document(_:)``.
    static func value(_ body: String) throws(PropertyListError) -> PropertyListValue {
        try read(document(body))
    }
}

/// Each construct of the XML property-list grammar, read from inline documents.
struct XMLPropertyListTests {
    @Test func readsTheStandardDocumentWithByteOrderMark() throws {
        let bytes = [0xEF, 0xBB, 0xBF] + Array(XMLFixture.document("<string>hi</string>").utf8)
        #expect(try XMLFixture.read(bytes) == "hi")
    }

    @Test func readsABareValueWithoutPlistElement() throws {
        #expect(try XMLFixture.read("<?xml version=\"1.0\"?>\n<array><integer>1</integer></array>\n") == [1])
        #expect(try XMLFixture.read("  <true/>") == true)
    }

    @Test func skipsAnInternalSubsetWithoutExpandingItsEntities() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
              <!ENTITY lol "lol">
              <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!-- a comment with ] and > inside -->
              <!ATTLIST plist version CDATA "1.0">
            ]>
            <plist><string>plain</string></plist>
            """
        #expect(try XMLFixture.read(text) == "plain")
        // The same declarations, referenced: refused rather than expanded.
        let referencing = text.replacingOccurrences(of: "<string>plain</string>", with: "<string>&lol2;</string>")
        let error = #expect(throws: PropertyListError.self) { try XMLFixture.read(referencing) }
        #expect(error?.code == .syntaxError)
        #expect(error?.message.contains("lol2") == true)
    }

    @Test func decodesPredefinedEntitiesAndCharacterReferences() throws {
        let value = try XMLFixture.value(
            "<string>&lt;a&gt; &amp; &apos;b&quot; &#65;&#x42;&#xe9;&#8364;&#x1F600;</string>")
        #expect(value == "<a> & 'b\" ABé€😀")
    }

    @Test func keepsTextOutsideReferencesVerbatim() throws {
        // `>` needs no escape; non-ASCII text, tabs, newlines and CR are kept as written
        // (Core Foundation does not normalise line ends).
        let value = try XMLFixture.value("<string> a > b\n\tüñî\r\nx </string>")
        #expect(value == " a > b\n\tüñî\r\nx ")
    }

    @Test(arguments: ["&#0;", "&#xD800;", "&#xDFFF;", "&#x110000;", "&#99999999;"])
    func refusesCharacterReferencesToInvalidCodePoints(_ reference: String) {
        let error = #expect(throws: PropertyListError.self) { try XMLFixture.value("<string>\(reference)</string>") }
        #expect(error?.code == .invalidString)
    }

    @Test func readsCDATASectionsVerbatim() throws {
        let value = try XMLFixture.value("<string>a<![CDATA[<b> & ]] &amp;]]>c</string>")
        #expect(value == "a<b> & ]] &amp;c")
        #expect(try XMLFixture.value("<dict><key><![CDATA[k&]]></key><string/></dict>") == ["k&": ""])
    }

    @Test func skipsCommentsAndProcessingInstructionsAnywhere() throws {
        let value = try XMLFixture.read(
            """
            <!-- before --><?xml-stylesheet href="x"?>
            <plist version="1.0"><!-- inside --><dict>
              <?pi data?><key>a<!-- in a key -->b</key><!-- between -->
              <string>x<?pi?>y</string>
            </dict><!-- after the value --></plist>
            <!-- after the root -->
            """)
        #expect(value == ["ab": "xy"])
    }

    @Test func ignoresWhitespaceBetweenElementsButKeepsItInStrings() throws {
        let value = try XMLFixture.value("\n\t <array>\r\n  <string>  two  spaces  </string>\n\t</array>  \n")
        #expect(value == ["  two  spaces  "])
    }

    @Test func ignoresAttributesEvenWithQuotedAngleBrackets() throws {
        #expect(try XMLFixture.read("<plist version='1.0' x = \"a>b\"><dict  z='1' /></plist>") == [:])
    }

    @Test func decodesBase64IgnoringWhitespace() throws {
        let value = try XMLFixture.value("<data>\n\tSGVs\n\tbG8s IHdv\r\ncmxk\tIQ==\n</data>")
        #expect(value == .data(Data("Hello, world!".utf8)))
        #expect(try XMLFixture.value("<data></data>") == .data(Data()))
        #expect(try XMLFixture.value("<data/>") == .data(Data()))
        #expect(try XMLFixture.value("<data>AQI</data>") == .data(Data([1, 2])))
    }

    @Test(arguments: [
        ("0", PropertyListValue.integer(0)),
        ("-5", .integer(-5)),
        ("+7", .integer(7)),
        (" \n42\t", .integer(42)),
        ("0x1F", .integer(31)),
        ("0XfF", .integer(255)),
        ("-0x10", .integer(-16)),
        ("007", .integer(7)),
        ("9223372036854775807", .integer(.max)),
        ("-9223372036854775808", .integer(.min)),
        ("-0x8000000000000000", .integer(.min)),
        ("9223372036854775808", .unsignedInteger(1 << 63)),
        ("18446744073709551615", .unsignedInteger(.max)),
        ("0xFFFFFFFFFFFFFFFF", .unsignedInteger(.max)),
    ])
    func readsIntegersOfEveryForm(_ text: String, _ expected: PropertyListValue) throws {
        let value = try XMLFixture.value("<integer>\(text)</integer>")
        #expect(value == expected)
        // Equality is numeric; the case must match too (unsigned only above Int64.max).
        switch (value, expected) {
        case (.integer, .integer), (.unsignedInteger, .unsignedInteger): break
        default: Issue.record("\(text) read as \(value), expected the case of \(expected)")
        }
    }

    @Test(arguments: [
        ("1.5", 1.5), ("-0.25", -0.25), ("1e3", 1000), ("1E-2", 0.01), (".5", 0.5), ("5.", 5),
        ("+2", 2), (" 3.25 ", 3.25), ("0.1", 0.1), ("1e400", .infinity), ("-1e400", -.infinity),
        ("inf", .infinity), ("+inf", .infinity), ("-inf", -.infinity), ("infinity", .infinity),
        ("+infinity", .infinity), ("-Infinity", -.infinity), ("INF", .infinity),
        ("4.9406564584124654e-324", .leastNonzeroMagnitude), ("1.7976931348623157e308", .greatestFiniteMagnitude),
    ])
    func readsReals(_ text: String, _ expected: Double) throws {
        #expect(try XMLFixture.value("<real>\(text)</real>") == .real(expected))
    }

    @Test(arguments: ["nan", "NaN", "NAN"])
    func readsNaN(_ text: String) throws {
        #expect(try XMLFixture.value("<real>\(text)</real>").doubleValue?.isNaN == true)
    }

    @Test func keepsTheSignOfNegativeZero() throws {
        #expect(try XMLFixture.value("<real>-0.0</real>").doubleValue?.sign == .minus)
    }

    @Test func readsDatesInUTC() throws {
        let value = try XMLFixture.value(
            "<array><date>2024-05-01T12:30:00Z</date><date>1869-01-03T08:16:32Z</date></array>")
        // Seconds since 1970, as Python's calendar.timegm computes them.
        #expect(
            value == [
                .date(Date(timeIntervalSince1970: 1_714_566_600)), .date(Date(timeIntervalSince1970: -3_187_007_008)),
            ])
    }

    @Test func readsBooleansInBothForms() throws {
        #expect(
            try XMLFixture.value("<array><true/><false/><true></true><false> </false></array>") == [
                true, false, true, false,
            ])
    }

    @Test func readsEmptyContainersAndStringsInBothForms() throws {
        let value = try XMLFixture.value(
            "<array><dict/><dict></dict><array/><array>\n</array><string/><string></string></array>")
        #expect(value == [[:], [:], [], [], "", ""])
    }

    @Test func readsDictionariesInDocumentOrder() throws {
        let value = try XMLFixture.value(
            "<dict><key>b</key><integer>1</integer><key>a</key><dict/><key></key><string/></dict>")
        #expect(value == ["b": 1, "a": [:], "": ""])
        #expect(value.dictionaryValue?.keys == ["b", "a", ""])
    }

    @Test func lastDuplicateKeyWinsAndKeepsTheFirstPosition() throws {
        let value = try XMLFixture.value(
            "<dict><key>k</key><integer>1</integer><key>j</key><true/><key>k</key><integer>2</integer></dict>")
        #expect(value.dictionaryValue?.keys == ["k", "j"])
        #expect(value["k"] == 2)
    }

    @Test func readsAKeyedArchiveUIDAsUID() throws {
        // Core Foundation's convention for keyed archives; plistlib keeps the dictionary.
        let value = try XMLFixture.value("<array><dict><key>CF$UID</key><integer>7</integer></dict></array>")
        #expect(value == [.uid(PropertyListUID(7))])
    }

    @Test(arguments: [
        "<dict><key>CF$UID</key><string>7</string></dict>",
        "<dict><key>CF$UID</key><integer>-1</integer></dict>",
        "<dict><key>CF$UID</key><integer>7</integer><key>x</key><true/></dict>",
        "<dict><key>CF$UIDx</key><integer>7</integer></dict>",
    ])
    func keepsOtherCFUIDShapesAsDictionaries(_ body: String) throws {
        #expect(try XMLFixture.value(body).dictionaryValue != nil)
    }

    @Test func readsNestedContainers() throws {
        let value = try XMLFixture.value(
            """
            <dict>
            \t<key>items</key>
            \t<array>
            \t\t<dict><key>name</key><string>Spork</string><key>tags</key><array><string>a</string></array></dict>
            \t\t<array><array/></array>
            \t</array>
            </dict>
            """)
        #expect(value == ["items": [["name": "Spork", "tags": ["a"]], [[]]]])
    }
}
