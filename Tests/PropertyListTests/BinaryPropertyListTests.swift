import Foundation
import TestSupport
import Testing

@testable import PropertyList

struct BinaryPropertyListTests {
    static let validFiles =
        Corpus.files(under: "plist/valid").filter { (try? Corpus.bytes($0).starts(with: Array("bplist".utf8))) == true }
        + Corpus.files(under: "archives").filter {
            !$0.contains("malformed") && (try? Corpus.bytes($0).starts(with: Array("bplist".utf8))) == true
        }
    static let invalidFiles = Corpus.files(under: "plist/invalid").filter {
        (try? Corpus.bytes($0).starts(with: Array("bplist".utf8))) == true
    }

    @Test(.requiresCorpus) func corpusHasBinaryFiles() {
        #expect(Self.validFiles.count > 50)
        #expect(Self.invalidFiles.count > 20)
    }

    @Test(arguments: validFiles)
    func validFileRoundTrips(_ path: String) throws {
        let original = try PropertyListReader().read(try Corpus.bytes(path), as: .binary)
        let written = try PropertyListWriter.binary.write(original)
        #expect(try PropertyListReader().read(written, as: .binary) == original, "binary round trip of \(path)")
    }

    @Test(arguments: invalidFiles)
    func invalidFileIsRejected(_ path: String) throws {
        #expect(throws: PropertyListError.self, "\(path) must be rejected") {
            try PropertyListReader().read(try Corpus.bytes(path), as: .binary)
        }
    }

    @Test func everyScalarKindRoundTrips() throws {
        let value: PropertyListValue = [
            "string": "ascii", "unicode": "naïve ☃ 😀", "empty": "",
            "small": 7, "byte": 255, "short": 65_535, "word": 4_294_967_295, "big": .integer(Int64.max),
            "negative": -1, "min": .integer(Int64.min), "huge": .unsignedInteger(UInt64.max),
            "double": 3.25, "float": .float(1.5), "nan": .real(.nan),
            "true": true, "false": false,
            "date": .date(Date(timeIntervalSinceReferenceDate: 123_456.789_012)),
            "data": .data(Data([0, 1, 2, 255])), "longData": .data(Data(repeating: 7, count: 300)),
            "uid": .uid(PropertyListUID(70_000)),
            "nested": [[], [:], ["a", ["b": [1, 2, 3]]]],
        ]
        let written = try PropertyListWriter.binary.write(value)
        let back = try PropertyListReader().read(written)
        #expect(back == value)
        #expect(back["float"] == .float(1.5), "a 32-bit real must stay 32-bit")
        #expect(back["huge"] == .unsignedInteger(UInt64.max))
        #expect(back.dictionaryValue?.keys == value.dictionaryValue?.keys, "key order must be kept")
    }

    @Test func equalScalarsAreWrittenOnce() throws {
        let record: PropertyListValue = ["name": "Spork", "valueInDollars": 5]
        let one = try PropertyListWriter.binary.write(.array([record]))
        let many = try PropertyListWriter.binary.write(.array(Array(repeating: record, count: 10)))
        // Ten records share their keys and values; only the dictionaries and refs grow.
        let plist = try BinaryPropertyList(bytes: many)
        #expect(plist.objectCount == 1 + 10 + 4)
        #expect(many.count < one.count + 9 * 16)
    }

    @Test func randomAccessReadsOneObjectWithoutTheTree() throws {
        let bytes = try PropertyListWriter.binary.write([
            "$objects": ["$null", ["name": "x"]], "$top": ["root": .uid(PropertyListUID(1))],
        ])
        let plist = try BinaryPropertyList(bytes: bytes)
        guard case .dictionary(let keys, let values) = try plist.object(at: plist.topObjectIndex) else {
            Issue.record("top object is not a dictionary")
            return
        }
        #expect(try keys.map { try plist.object(at: $0) } == [.scalar("$objects"), .scalar("$top")])
        guard case .array(let objects) = try plist.object(at: values[0]) else {
            Issue.record("$objects is not an array")
            return
        }
        #expect(try plist.value(at: objects[1]) == ["name": "x"])
        let error = #expect(throws: PropertyListError.self) { try plist.object(at: plist.objectCount) }
        #expect(error?.code == .referenceOutOfRange)
    }

    @Test func duplicateKeysAreMergedEvenAfterRecordsWithDistinctKeys() throws {
        // [{a: 1, b: 2}, {a: 1, b: 2}, {a: 1, a: 2}]: records 0 and 1 share key objects
        // 4 and 5; record 2 names object 4 twice, and its later value wins.
        let bytes = BinaryPlistBytes.build(objects: [
            [0xA3, 0x01, 0x02, 0x03],
            [0xD2, 0x04, 0x05, 0x06, 0x07],
            [0xD2, 0x04, 0x05, 0x06, 0x07],
            [0xD2, 0x04, 0x04, 0x06, 0x07],
            [0x51, 0x61], [0x51, 0x62], [0x10, 0x01], [0x10, 0x02],
        ])
        let value = try PropertyListReader().read(bytes)
        #expect(value == [["a": 1, "b": 2], ["a": 1, "b": 2], ["a": 2]])
        #expect(value.arrayValue?[2].dictionaryValue?.count == 1)
    }

    /// Offsets and references take 1, 2 or 4 bytes as the file and its object count
    /// grow; each width must be the narrowest that fits and read back to the same value.
    @Test(arguments: [10, 300, 70_000])
    func writerPicksTheNarrowestWidths(objects count: Int) throws {
        let value = PropertyListValue.array((0..<count).map { .string("item \($0)") })
        let written = try PropertyListWriter.binary.write(value)
        let trailer = written.suffix(32)
        let offsetSize = Int(trailer[trailer.startIndex + 6])
        let referenceSize = Int(trailer[trailer.startIndex + 7])
        let tableOffset = trailer.suffix(8).reduce(0) { $0 << 8 | Int($1) }
        let narrowest = { (maximum: Int) in [1, 2, 4, 8].first { maximum < 1 << ($0 * 8) }! }
        #expect(offsetSize == narrowest(tableOffset))
        #expect(referenceSize == narrowest(count))
        #expect(written.count == tableOffset + (count + 1) * offsetSize + 32)
        #expect(try PropertyListReader().read(written) == value)
    }

    @Test func outputIsDeterministic() throws {
        let value: PropertyListValue = [
            "b": [1, 2], "a": ["x": "y"], "c": .date(Date(timeIntervalSinceReferenceDate: 0)),
        ]
        #expect(try PropertyListWriter.binary.write(value) == PropertyListWriter.binary.write(value))
    }

    /// `é` and `e` + U+0301 are equal Swift strings but different text: the writer keeps
    /// both as they are instead of writing one object for the two.
    @Test func canonicallyEqualStringsAreWrittenAsThemselves() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let value: PropertyListValue = ["a": .string(composed), "b": .string(decomposed), "c": [.string(decomposed)]]
        // Merging happens only when the two land in one probe chain of the writer's
        // intern table, so the table's own test of sameness is checked directly too.
        #expect(composed == decomposed && !composed.isSameKey(as: decomposed))
        let back = try PropertyListReader().read(PropertyListWriter.binary.write(value))
        #expect(back["a"]?.stringValue.map { Array($0.unicodeScalars) } == Array(composed.unicodeScalars))
        #expect(back["b"]?.stringValue.map { Array($0.unicodeScalars) } == Array(decomposed.unicodeScalars))
        #expect(
            back["c"]?.arrayValue?.first?.stringValue.map { Array($0.unicodeScalars) }
                == Array(decomposed.unicodeScalars))
    }

    /// The intern table through many doublings: every string keeps the first number it
    /// was given, whether met again as the same storage, as a copy with storage of its
    /// own, or as a small string held inline; strings that differ only in their last
    /// bytes (which the hash reads as one overlapping word) stay apart.
    @Test func internTableGivesEachStringOneNumberThroughGrowth() {
        var table = BinaryInternTable<String>()
        let strings = (0..<20_000).map { "item-\($0)-" + String(repeating: "x", count: $0 % 40) }
        for (number, string) in strings.enumerated() {
            #expect(table.claim(string, next: number) == (number, true), "\(string)")
        }
        for (number, string) in strings.enumerated() {
            let copy = String(decoding: Array(string.utf8), as: UTF8.self)
            #expect(table.claim(string, next: -1) == (number, false))
            #expect(table.claim(copy, next: -1) == (number, false))
        }
        let lastByteDiffers = "item-39-" + String(repeating: "x", count: 38) + "y"
        #expect(table.claim(lastByteDiffers, next: 20_000) == (20_000, true))
    }
}
