import Foundation
import PropertyList
import Testing

/// A document that is one JSON scalar is JSON; OpenStep keeps its own strings.
struct FormatDetectionTests {
    @Test(arguments: [
        ("\"caf\\u00e9\"", PropertyListValue.string("café")),
        ("123", .integer(123)),
        ("-1.5e3", .real(-1500)),
        ("0.25\n", .real(0.25)),
        ("true", .bool(true)),
        ("  false  ", .bool(false)),
        ("\"a\\/b\"", .string("a/b")),
    ])
    func jsonScalarDocumentsReadAsJSON(_ text: String, _ expected: PropertyListValue) throws {
        // Read as OpenStep, `"caf\u00e9"` became `cafu00e9` and `123` the string "123".
        let (value, format) = try PropertyListReader().readWithFormat(Array(text.utf8))
        #expect(format == .json, "\(text)")
        #expect(value == expected, "\(text)")
    }

    @Test func nullIsJSONAndRefused() {
        #expect(PropertyListFormat.detect(Array("null".utf8)) == .json)
        #expect(throws: PropertyListError.self) { try PropertyListReader().read(Array("null".utf8)) }
    }

    @Test(arguments: [
        ("\"caf\\U00e9\"", PropertyListValue.string("café")),  // OpenStep's escape, not JSON's
        ("1.2.3", .string("1.2.3")),  // a version string
        ("0123", .string("0123")),  // JSON numbers have no leading zero
        ("abc", .string("abc")),
        ("\"a\" = \"b\";", .dictionary(["a": "b"])),  // a .strings file
        ("truest", .string("truest")),
    ])
    func otherTextStaysOpenStep(_ text: String, _ expected: PropertyListValue) throws {
        let (value, format) = try PropertyListReader().readWithFormat(Array(text.utf8))
        #expect(format == .openStep, "\(text)")
        #expect(value == expected, "\(text)")
    }
}
