import Foundation
import Testing

@testable import KeyedArchive

/// The direct binary writer against the property-list tree of the same archive: reading
/// the bytes back with the property-list layer must give exactly that tree, for graphs
/// small and large enough to need wider references and offsets.
struct ArchiveWriterTests {
    static func encoder(items count: Int) -> KeyedEncoder {
        let encoder = KeyedEncoder()
        let folder = Folder(name: "top", children: [Folder(name: "child")])
        encoder.encode(Item.samples(count), forKey: "root")
        encoder.encode(folder.children[0], forKey: "conditionalParentOmitted")
        encoder.encode(folder, forKey: "folder")
        encoder.encode(UInt64.max, forKey: "unsigned")
        encoder.encode(Float(0.1), forKey: "float")
        encoder.encode(PriceTag(valueInDollars: 3), forKey: "versioned")
        encoder.encode(["k": [1.5, -2]] as [String: [Double]], forKey: "nested")
        encoder.encode("日本語 and ASCII", forKey: "unicode")
        encoder.encode(Data(repeating: 7, count: 300), forKey: "data")
        return encoder
    }

    @Test(arguments: [0, 10, 300, 30_000])
    func binaryOutputReadsBackAsTheArchiveTree(_ count: Int) throws {
        let encoder = Self.encoder(items: count)
        let tree = try encoder.encodedPropertyList
        let bytes = try encoder.encodedBytes
        #expect(try PropertyListReader().read(bytes) == tree)
    }

    @Test func xmlOutputReadsBackAsTheArchiveTree() throws {
        let encoder = Self.encoder(items: 10)
        encoder.outputFormat = .xml
        let bytes = try encoder.encodedBytes
        #expect(String(decoding: bytes.prefix(38), as: UTF8.self) == #"<?xml version="1.0" encoding="UTF-8"?>"#)
        #expect(try PropertyListReader().read(bytes) == encoder.encodedPropertyList)
    }

    @Test func layoutHasFoundationsFixedParts() throws {
        let tree = try Self.encoder(items: 2).encodedPropertyList
        #expect(tree["$archiver"] == "NSKeyedArchiver")
        #expect(tree["$version"] == 100_000)
        #expect(tree["$objects"]?.arrayValue?.first == "$null")
        // One class entry per class, shared by all its instances.
        let classNames = tree["$objects"]?.arrayValue?.compactMap { $0["$classname"]?.stringValue } ?? []
        #expect(classNames.count == Set(classNames).count)
        #expect(classNames.contains(Item.archiveClassName))
    }

    @Test func encodingTheSameValueTwiceStoresItOnce() throws {
        let encoder = KeyedEncoder()
        let data = Data([1, 2, 3])
        encoder.encode(["same", "same"], forKey: "a")
        encoder.encode(data, forKey: "b")
        encoder.encode(data, forKey: "c")
        let tree = try encoder.encodedPropertyList
        let objects = tree["$objects"]?.arrayValue ?? []
        #expect(objects.filter { $0 == "same" }.count == 1)
        #expect(tree["$top"]?["b"] == tree["$top"]?["c"])
    }

    /// `é` and `e` + U+0301 are equal Swift strings but different text, values or keys:
    /// each is archived as itself, as Foundation's archiver (whose `isEqual:` is
    /// literal) keeps them, and comes back with its own characters.
    @Test func canonicallyEqualStringsAreArchivedAsThemselves() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let data = try KeyedArchiver.archivedData(withRootObject: [composed, decomposed])
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, from: data))
        #expect(
            back.map { Array($0.unicodeScalars) } == [Array(composed.unicodeScalars), Array(decomposed.unicodeScalars)])

        // As keys: the archive's top dictionary holds both, each with its own bytes.
        let encoder = KeyedEncoder()
        encoder.encode(1, forKey: composed)
        encoder.encode(2, forKey: decomposed)
        let tree = try PropertyListReader().read([UInt8](encoder.encodedData))
        let keys = try #require(tree["$top"]?.dictionaryValue).keys.map { Array($0.unicodeScalars) }
        #expect(keys.count == 2)
        #expect(Set(keys) == [Array(composed.unicodeScalars), Array(decomposed.unicodeScalars)])
    }

    @Test func longStringsAreMergedOnlyWhenTheyAreTheSameString() throws {
        let shared = String(repeating: "long string ", count: 4)
        let encoder = KeyedEncoder()
        encoder.encode([shared, shared], forKey: "shared")
        // Temporaries that die after each call: their storage must not be mistaken for
        // a later string's, or values would be swapped.
        for index in 0..<500 {
            encoder.encode(String(repeating: "temporary ", count: 3) + String(index), forKey: "t\(index)")
        }
        let tree = try encoder.encodedPropertyList
        #expect(tree["$objects"]?.arrayValue?.filter { $0 == .string(shared) }.count == 1)
        let decoder = try KeyedDecoder(bytes: encoder.encodedBytes)
        #expect(try decoder.decode([String].self, forKey: "shared") == [shared, shared])
        for index in 0..<500 {
            #expect(
                try decoder.decode(String.self, forKey: "t\(index)") == String(repeating: "temporary ", count: 3)
                    + String(index))
        }
    }

    @Test func nilIsAReferenceToNull() throws {
        let encoder = KeyedEncoder()
        encoder.encode(nil as String?, forKey: "string")
        encoder.encode(nil as Any?, forKey: "any")
        let top = try encoder.encodedPropertyList["$top"]
        #expect(top?["string"] == .uid(PropertyListUID(0)))
        #expect(top?["any"] == .uid(PropertyListUID(0)))
    }

    @Test func unsupportedValuesAreRecordedAndThrown() {
        struct NotArchivable {}
        let encoder = KeyedEncoder()
        encoder.encode(NotArchivable() as Any?, forKey: "x")
        #expect(encoder.error?.code == .unsupportedValue)
        let error = #expect(throws: KeyedArchiveError.self) { try encoder.encodedData }
        #expect(error?.code == .unsupportedValue)
    }

    @Test func graphsDeeperThanTheLimitAreRefused() {
        var node = Node(value: 0)
        for value in 1...300 { node = Node(value: value, next: node) }
        let error = #expect(throws: KeyedArchiveError.self) { try KeyedArchiver.archivedData(withRootObject: node) }
        #expect(error?.code == .limitExceeded)
    }

    /// A property-list value nests `NSArray`s and `NSDictionary`s, each an object that
    /// counts against the same depth as instances: past it the archiver records
    /// `.limitExceeded` instead of recursing on, and at it the archive reads back.
    @Test(arguments: [PropertyListFormat.binary, .xml])
    func propertyListValuesDeeperThanTheLimitAreRefused(format: PropertyListFormat) throws {
        func nested(_ depth: Int) -> PropertyListValue {
            var value: PropertyListValue = "leaf"
            for level in 0..<depth { value = level.isMultiple(of: 2) ? [value] : ["k": value] }
            return value
        }
        let maxDepth = PropertyListLimits.default.maxDepth
        for depth in [maxDepth + 1, 10_000] {
            let error = #expect(throws: KeyedArchiveError.self) {
                try KeyedArchiver.archivedData(withRootObject: nested(depth), format: format)
            }
            #expect(error?.code == .limitExceeded)
        }
        let archive = try KeyedArchiver.archivedData(withRootObject: nested(maxDepth), format: format)
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: PropertyListValue.self, from: archive) == nested(maxDepth))
    }

    @Test func onlyBinaryAndXMLAreArchiveFormats() {
        let error = #expect(throws: KeyedArchiveError.self) {
            try KeyedArchiver.archivedData(withRootObject: "x", format: .json)
        }
        #expect(error?.code == .unsupportedValue)
    }
}
