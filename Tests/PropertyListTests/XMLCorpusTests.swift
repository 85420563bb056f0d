import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// The XML files of the shared corpus, selected by `MANIFEST.csv`.
struct XMLCorpusTests {
    /// Paths whose MANIFEST format is `xml` and whose expectation is `status`.
    static func manifestFiles(status: String) -> [String] {
        guard let manifest = try? Corpus.bytes("MANIFEST.csv") else { return [] }
        return String(decoding: manifest, as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst().compactMap {
            line in
            // file,bytes,format,plistlib,...; the first four fields never hold commas.
            let fields = line.split(separator: ",", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count > 3, fields[2] == "xml", fields[3] == status else { return nil }
            return String(fields[0])
        }
    }

    static let validFiles = manifestFiles(status: "valid").filter {
        $0.hasPrefix("plist/valid/") || $0.hasPrefix("archives/")
    }

    /// Invalid XML files, plus any other file under `plist/invalid/` that starts like XML.
    static let invalidFiles: [String] = {
        let listed = manifestFiles(status: "invalid").filter { $0.hasPrefix("plist/invalid/") }
        let lookalikes = Corpus.files(under: "plist/invalid").filter { path in
            guard !listed.contains(path), let bytes = try? Corpus.bytes(path) else { return false }
            let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
            return text.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "<")
        }
        return listed + lookalikes
    }()

    static func read(_ path: String) throws -> PropertyListValue {
        try XMLFixture.read(try Corpus.bytes(path))
    }

    @Test(.requiresCorpus)
    func manifestListsTheXMLFiles() {
        #expect(Self.validFiles.count >= 30)
        #expect(Self.invalidFiles.count >= 30)
    }

    @Test(.requiresCorpus, arguments: validFiles)
    func validFileParses(_ path: String) throws {
        #expect(throws: Never.self) { _ = try Self.read(path) }
    }

    @Test(.requiresCorpus, arguments: validFiles)
    func validFileRoundTrips(_ path: String) throws {
        let value = try Self.read(path)
        let written = try XMLPropertyListWriter.write(value)
        #expect(try XMLFixture.read(written) == value)
    }

    @Test(.requiresCorpus, arguments: invalidFiles)
    func invalidFileIsRejected(_ path: String) throws {
        #expect(throws: PropertyListError.self) { try Self.read(path) }
    }

    /// Files that readers disagree on, and what we make of them.
    enum Outcome: Sendable {
        case value(PropertyListValue)
        case error(PropertyListError.Code)
    }

    static let edgeOutcomes: [(String, Outcome)] = [
        // A comment as a key's only content is an empty key (as in XML); both keys are
        // empty, so the second value wins. Core Foundation rejects the comment.
        ("plist/edge/libplist/empty_keys.plist", .value(["": "empty key with comment"])),
        // JSON fuzzer inputs (`3`, `-`): no XML at all.
        (
            "plist/edge/libplist-fuzz-crashes/jplist-crashes__clusterfuzz-testcase-minimized-jplist_fuzzer-5486807695884288",
            .error(.syntaxError)
        ),
        (
            "plist/edge/libplist-fuzz-crashes/jplist-crashes__clusterfuzz-testcase-minimized-jplist_fuzzer-6639076466360320",
            .error(.syntaxError)
        ),
        // `<data>` holding quotes, `:` and `.`: Core Foundation skips such bytes, we refuse them.
        (
            "plist/edge/libplist-fuzz-crashes/xplist-crashes__clusterfuzz-testcase-4663876528373760",
            .error(.invalidObject)
        ),
        // Integers at both ends of the range.
        (
            "plist/edge/libplist-fuzz-crashes/xplist-crashes__crash-348c909a0b3532977185f551eb5d2ed04e694883",
            .value([-1, .unsignedInteger(.max), .integer(.max), .integer(.min), .unsignedInteger(1 << 63)])
        ),
        // A cut DOCTYPE leaves a bare `<array>` as the root, and a `<key>` follows it.
        (
            "plist/edge/libplist-fuzz-crashes/xplist-leaks__leak-4c81aae70b20d9b9408b78d40999a54205bdcfb7",
            .error(.syntaxError)
        ),
        // A character reference (`&#32;`) as text between elements.
        ("plist/edge/rust-plist/xml_entity_error.plist", .error(.syntaxError)),
    ]

    @Test(.requiresCorpus, arguments: edgeOutcomes)
    func edgeFileHasItsDocumentedOutcome(_ path: String, _ outcome: Outcome) throws {
        switch outcome {
        case .value(let expected):
            #expect(try Self.read(path) == expected)
        case .error(let code):
            let error = #expect(throws: PropertyListError.self) { try Self.read(path) }
            #expect(error?.code == code)
        }
    }

    @Test(.requiresCorpus)
    func everyXMLEdgeFileHasADocumentedOutcome() {
        let documented = Set(Self.edgeOutcomes.map(\.0))
        #expect(Set(Self.manifestFiles(status: "edge")).subtracting(documented).isEmpty)
    }

    /// Files written by Apple's own Foundation and Interface Builder: our writer must give
    /// back the same bytes, except for the older DOCTYPE public identifier and for reals,
    /// which Core Foundation prints with 17 significant digits (`3` for 3.0) and we print
    /// shortest (`3.0`); those lines must still hold the same number.
    static let appleWrittenFiles = validFiles.filter { $0.hasPrefix("archives/apple/") }

    @Test(.requiresCorpus, arguments: appleWrittenFiles)
    func appleWrittenFileComesBackByteForByte(_ path: String) throws {
        let original = String(decoding: try Corpus.bytes(path), as: UTF8.self)
            .replacingOccurrences(of: "-//Apple Computer//DTD PLIST 1.0//EN", with: "-//Apple//DTD PLIST 1.0//EN")
        let written = String(decoding: try XMLPropertyListWriter.write(try Self.read(path)), as: UTF8.self)
        let originalLines = original.split(separator: "\n", omittingEmptySubsequences: false)
        let writtenLines = written.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(originalLines.count == writtenLines.count)
        for (ours, theirs) in zip(writtenLines, originalLines) where ours != theirs {
            guard let a = Self.real(in: ours), let b = Self.real(in: theirs), a == b else {
                Issue.record("\(path): wrote \(ours.debugDescription), Apple wrote \(theirs.debugDescription)")
                return
            }
        }
    }

    private static func real(in line: Substring) -> Double? {
        let trimmed = line.drop { $0 == "\t" }
        guard trimmed.hasPrefix("<real>"), trimmed.hasSuffix("</real>") else { return nil }
        return Double(trimmed.dropFirst(6).dropLast(7))
    }

    @Test(.requiresCorpus)
    func readsTheValuesWrittenInRustPlistsSample() throws {
        let value = try Self.read("plist/valid/rust-plist/xml.plist")
        #expect(value["Author"] == "William Shakespeare")
        #expect(
            value["Lines"] == ["It is a tale told by an idiot,     ", "Full of sound and fury, signifying nothing."])
        #expect(value["Death"] == 1564)
        #expect(value["Height"] == .real(1.6))
        #expect(value["Data"] == .data(Data([0, 0, 0, 190, 0, 0, 0, 3, 0, 0, 0, 30, 0, 0, 0])))
        #expect(value["Birthdate"] == .date(Date(timeIntervalSince1970: 358_860_726)))
        #expect(value["Blank"] == "")
        #expect(value["BiggestNumber"] == .unsignedInteger(.max))
        #expect(value["SmallestNumber"] == .integer(.min))
        #expect(value["HexademicalNumber"] == 0xDEAD_BEEF)
        #expect(value["IsTrue"] == true)
        #expect(value["IsNotFalse"] == false)
        #expect(value["Pets"] == "A cat & a dog.")
        #expect(value.dictionaryValue?.count == 13)
    }

    @Test(.requiresCorpus)
    func readsKeyedArchiveReferencesAsUIDs() throws {
        let archive = try Self.read(
            "archives/apple/swift-corelibs-foundation/Tests_Foundation_Resources_NSKeyedUnarchiver-ArrayTest.plist")
        let array = archive["$objects"]?.arrayValue?[1]
        #expect(array?["$class"] == .uid(PropertyListUID(5)))
        #expect(
            array?["NS.objects"] == [
                .uid(PropertyListUID(2)), .uid(PropertyListUID(2)), .uid(PropertyListUID(3)), .uid(PropertyListUID(4)),
            ])
    }
}
