import Foundation
import Testing

@testable import PropertyList

/// Every kind of broken XML property list, inline, one test per kind: each must end in a
/// typed error with its position, never a crash, a hang or a partial value.
struct XMLMalformedInputTests {
    private func expectError(
        _ code: PropertyListError.Code, _ text: String, limits: PropertyListLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: PropertyListError.self, sourceLocation: sourceLocation) {
            try XMLFixture.read(text, limits: limits)
        }
        #expect(error?.code == code, "\(error.map { "\($0)" } ?? "no error")", sourceLocation: sourceLocation)
        #expect(error?.line != nil, sourceLocation: sourceLocation)
    }

    private func expectError(
        _ code: PropertyListError.Code, body: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectError(code, XMLFixture.document(body), sourceLocation: sourceLocation)
    }

    @Test func reportsLineAndColumnOfTheOffendingTag() {
        let error = #expect(throws: PropertyListError.self) {
            try XMLFixture.read("<plist>\n<array>\n  <strin>x</strin>\n</array></plist>")
        }
        #expect(error?.code == .invalidObject)
        #expect(error?.line == 3)
        #expect(error?.column == 3)
        #expect(error?.offset == 18)
    }

    @Test func emptyInputIsTruncated() {
        expectError(.truncated, "")
        expectError(.truncated, " \n<!-- only a comment -->\n")
    }

    @Test func unclosedContainerIsTruncated() {
        expectError(.truncated, "<plist><array><integer>1</integer>")
        expectError(.truncated, "<plist><dict><key>a</key><string>b</string>")
        expectError(.truncated, "<plist><array/>")
    }

    @Test func inputEndingInsideATagOrTextIsTruncated() {
        expectError(.truncated, "<plist><array><integ")
        expectError(.truncated, "<plist><string>abc")
        expectError(.truncated, "<plist><string>abc</str")
        expectError(.truncated, "<plist version=\"1.0")
    }

    @Test func unterminatedCommentCDATAAndDeclarationsAreTruncated() {
        expectError(.truncated, "<plist><!-- never closed <true/></plist>")
        expectError(.truncated, "<plist><string><![CDATA[never closed</string></plist>")
        expectError(.truncated, "<?xml version=\"1.0\"")
        expectError(.truncated, "<!DOCTYPE plist [ <!ENTITY a \"b\"> ")
        expectError(.truncated, "<plist><?pi never closed")
    }

    @Test func mismatchedCloseTagIsASyntaxError() {
        expectError(.syntaxError, body: "<array><string>x</array>")
        expectError(.syntaxError, body: "<array></dict>")
        expectError(.syntaxError, body: "<string>x</strin>")
        expectError(.syntaxError, "<plist><true/></array>")
        expectError(.syntaxError, "</plist>")
    }

    @Test func unknownTagIsAnInvalidObject() {
        expectError(.invalidObject, body: "<set><string>x</string></set>")
        expectError(.invalidObject, body: "<array><nil/></array>")
        expectError(.invalidObject, body: "<String>x</String>")
    }

    @Test func textWhereAValueIsExpectedIsASyntaxError() {
        expectError(.syntaxError, body: "just text")
        expectError(.syntaxError, body: "<array>loose<true/></array>")
        expectError(.syntaxError, body: "<array>&#32;</array>")
        expectError(.syntaxError, body: "<array><![CDATA[x]]></array>")
    }

    @Test func malformedTagsAreSyntaxErrors() {
        expectError(.syntaxError, "<plist>< array/></plist>")
        expectError(.syntaxError, "<plist><array/ ></plist>")
        expectError(.syntaxError, "<plist version=1.0><true/></plist>")
        expectError(.syntaxError, "<plist version><true/></plist>")
        expectError(.syntaxError, "<plist a=\"<\"><true/></plist>")
        expectError(.syntaxError, "<plist><true/></plist x>")
    }

    @Test func elementInsideTextIsAnInvalidObject() {
        expectError(.invalidObject, body: "<string>a<true/>b</string>")
        expectError(.invalidObject, body: "<dict><key><string>k</string></key><true/></dict>")
    }

    @Test func undeclaredEntityAndBareAmpersandAreSyntaxErrors() {
        expectError(.syntaxError, body: "<string>&nbsp;</string>")
        expectError(.syntaxError, body: "<string>fish & chips</string>")
        expectError(.syntaxError, body: "<string>&amp</string>")
        expectError(.syntaxError, body: "<string>&#xZZ;</string>")
        expectError(.syntaxError, body: "<string>&#;</string>")
        expectError(.syntaxError, body: "<string>&#X41;</string>")
    }

    @Test func dictionaryValueWithoutKeyIsAnInvalidObject() {
        expectError(.invalidObject, body: "<dict><string>value</string></dict>")
        expectError(.invalidObject, body: "<dict><key>a</key><true/><false/></dict>")
    }

    @Test func dictionaryKeyWithoutValueIsAnInvalidObject() {
        expectError(.invalidObject, body: "<dict><key>a</key></dict>")
        expectError(.invalidObject, body: "<dict><key>a</key><key>b</key><true/></dict>")
    }

    @Test func keyOutsideADictionaryIsAnInvalidObject() {
        expectError(.invalidObject, body: "<array><key>a</key></array>")
        expectError(.invalidObject, body: "<key>a</key>")
    }

    @Test func plistMustHoldExactlyOneValue() {
        expectError(.invalidObject, "<plist></plist>")
        expectError(.invalidObject, "<plist/>")
        expectError(.invalidObject, "<plist><true/><false/></plist>")
        expectError(.invalidObject, "<plist><array/><array/></plist>")
        expectError(.invalidObject, "<plist><array><plist><true/></plist></array></plist>")
    }

    @Test func contentAfterTheRootIsASyntaxError() {
        expectError(.syntaxError, XMLFixture.document("<true/>") + "<false/>")
        expectError(.syntaxError, XMLFixture.document("<true/>") + "trailing")
        expectError(.syntaxError, "<true/><false/>")
        expectError(.syntaxError, XMLFixture.document("<true/>") + "<!DOCTYPE plist>")
    }

    @Test func misplacedDeclarationsAreSyntaxErrors() {
        expectError(.syntaxError, "<plist><?xml version=\"1.0\"?><true/></plist>")
        expectError(.syntaxError, "<!DOCTYPE plist><!DOCTYPE plist><plist><true/></plist>")
    }

    @Test func nonEmptyBooleanIsAnInvalidObject() {
        expectError(.invalidObject, body: "<true>yes</true>")
        expectError(.invalidObject, body: "<false><true/></false>")
    }

    @Test(arguments: ["", "abc", "1.5", "0x", "0xG1", "12a", "- 5", "--5", "1 2", "1_000"])
    func malformedIntegerIsAnInvalidObject(_ text: String) {
        expectError(.invalidObject, body: "<integer>\(text)</integer>")
    }

    @Test(arguments: ["18446744073709551616", "-9223372036854775809", "0x10000000000000000", "99999999999999999999999"])
    func integerOutside64BitsIsAnInvalidObject(_ text: String) {
        expectError(.invalidObject, body: "<integer>\(text)</integer>")
    }

    @Test(arguments: ["", "abc", "1.2.3", "e5", "1e", "1e+", "0x1p3", "nan1", "-nan", "in", "infinit", "1,5", "--1"])
    func malformedRealIsAnInvalidObject(_ text: String) {
        expectError(.invalidObject, body: "<real>\(text)</real>")
    }

    @Test(arguments: [
        "", "yesterday", "2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z", "2024-05-01T25:00:00Z", "2024-05-01T12:30:00",
        "2024-05-01 12:30:00Z",
    ])
    func malformedDateIsAnInvalidObject(_ text: String) {
        expectError(.invalidObject, body: "<date>\(text)</date>")
    }

    @Test(arguments: ["SGVsbG8*", "SGVsbG8=x", "S", "SGVs\u{0}bG8=", "é"])
    func badBase64IsAnInvalidObject(_ text: String) {
        expectError(.invalidObject, body: "<data>\(text)</data>")
    }

    @Test func nonUTF8BytesAreAnInvalidString() {
        for bad: [UInt8] in [
            [0xFF], [0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
        ] {
            let bytes = Array("<plist><string>a".utf8) + bad + Array("</string></plist>".utf8)
            let error = #expect(throws: PropertyListError.self) { try XMLFixture.read(bytes) }
            #expect(error?.code == .invalidString, "bytes \(bad)")
            #expect(error?.offset == 16)
        }
        // Also outside text, in a comment.
        let comment = Array("<plist><!-- ".utf8) + [0xFE] + Array(" --><true/></plist>".utf8)
        let error = #expect(throws: PropertyListError.self) { try XMLFixture.read(comment) }
        #expect(error?.code == .invalidString)
    }

    @Test func declaredEncodingsOtherThanUTF8AreRefused() throws {
        expectError(.invalidString, "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><true/></plist>")
        expectError(.invalidString, "<?xml version=\"1.0\" encoding='ISO-8859-1'?><plist><true/></plist>")
        #expect(try XMLFixture.read("<?xml version=\"1.0\" encoding=\"utf-8\"?><plist><true/></plist>") == true)
    }

    // MARK: - Hostile shapes

    /// Inputs of a few megabytes shaped so that any rescanning would take hours.
    enum Pathological: CaseIterable, Sendable {
        case manyAttributes, unclosedDeclarationsInDoctype, unclosedQuotesInDoctype, manyAmpersands
        case longCDATAOfBrackets, unclosedComments, manyElements, manyDistinctKeys, longData, manyOpenBrackets

        var text: String {
            switch self {
            case .manyAttributes: "<plist" + String(repeating: " a=\"x\"", count: 300_000) + "><true/></plist>"
            case .unclosedDeclarationsInDoctype: "<!DOCTYPE plist [" + String(repeating: "<", count: 1_000_000)
            case .unclosedQuotesInDoctype: "<!DOCTYPE plist [" + String(repeating: "<!ENTITY a '>", count: 200_000)
            case .manyAmpersands: "<plist><string>" + String(repeating: "&", count: 1_000_000)
            case .longCDATAOfBrackets: "<plist><string><![CDATA[" + String(repeating: "]", count: 2_000_000)
            case .unclosedComments: String(repeating: "<!--", count: 500_000)
            case .manyElements: "<plist><array>" + String(repeating: "<true/>", count: 300_000) + "</array></plist>"
            case .manyDistinctKeys:
                "<plist><dict>" + (0..<100_000).map { "<key>k\($0)</key><true/>" }.joined() + "</dict></plist>"
            case .longData: "<plist><data>" + String(repeating: "QUJD", count: 1_000_000) + "</data></plist>"
            case .manyOpenBrackets: String(repeating: "<", count: 2_000_000)
            }
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: Pathological.allCases)
    func hostileShapesEndQuickly(_ input: Pathological) {
        do {
            _ = try XMLFixture.read(input.text)
        } catch {
            #expect(error.line != nil)
        }
    }

    // MARK: - Limits

    @Test func depthLimitCountsNestedContainers() throws {
        let limits = PropertyListLimits(maxDepth: 3)
        #expect(throws: Never.self) {
            _ = try XMLFixture.read("<plist><array><dict><key>a</key><array/></dict></array></plist>", limits: limits)
            _ = try XMLFixture.read(
                "<plist><array><array><array><true/></array></array></array></plist>", limits: limits)
        }
        expectError(
            .limitExceeded, "<plist><array><array><array><array/></array></array></array></plist>",
            limits: PropertyListLimits(maxDepth: 2))
        expectError(
            .limitExceeded, "<plist><array><dict><key>a</key><array><true/></array></dict></array></plist>",
            limits: PropertyListLimits(maxDepth: 2))
    }

    @Test func deepNestingFailsFastWithoutOverflowingTheStack() {
        let depth = 100_000
        let text =
            "<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
            + "</plist>"
        expectError(.limitExceeded, text)
        // With the limit raised, nesting costs heap, not stack (kept modest because
        // destroying the resulting value does recurse).
        let deep =
            "<plist>" + String(repeating: "<array>", count: 2_000) + String(repeating: "</array>", count: 2_000)
            + "</plist>"
        #expect(throws: Never.self) { _ = try XMLFixture.read(deep, limits: PropertyListLimits(maxDepth: 2_000)) }
    }

    @Test func objectCountLimitCountsEveryValue() throws {
        let text =
            "<plist><array><integer>1</integer><integer>2</integer><dict><key>k</key><true/></dict></array></plist>"
        #expect(throws: Never.self) { _ = try XMLFixture.read(text, limits: PropertyListLimits(maxObjectCount: 5)) }
        expectError(.limitExceeded, text, limits: PropertyListLimits(maxObjectCount: 4))
    }

    @Test func byteCountLimitCountsStringsKeysAndData() throws {
        let text = "<plist><dict><key>ab</key><string>cde</string><key>f</key><data>AAEC</data></dict></plist>"
        #expect(throws: Never.self) { _ = try XMLFixture.read(text, limits: PropertyListLimits(maxByteCount: 9)) }
        expectError(.limitExceeded, text, limits: PropertyListLimits(maxByteCount: 8))
        expectError(
            .limitExceeded, "<plist><string>&amp;&amp;&amp;</string></plist>",
            limits: PropertyListLimits(maxByteCount: 2))
    }
}
