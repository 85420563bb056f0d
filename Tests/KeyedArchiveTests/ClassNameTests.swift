import Foundation
import Testing

@testable import KeyedArchive

/// Class names in both directions: Apple's module-qualified names decode into our
/// types, and we write the names Apple's side expects.
struct ClassNameTests {
    static func archive(_ item: Item, as name: String) throws -> Data {
        let encoder = KeyedEncoder()
        encoder.setClassName(name, for: Item.self)
        encoder.encode(item, forKey: "root")
        return try encoder.encodedData
    }

    @Test func archivedNameDefaultsToTheModuleQualifiedTypeName() throws {
        #expect(Item.archiveClassName == "KeyedArchiveTests.Item")
        let tree = try PropertyListReader().read(KeyedArchiver.archivedData(withRootObject: Item.samples(1)))
        let names = tree["$objects"]?.arrayValue?.compactMap { $0["$classname"]?.stringValue }
        #expect(names == ["NSDate", "KeyedArchiveTests.Item", "NSArray"])
    }

    @Test func iOSArchiveOfHomepwnerItemDecodesIntoOurItem() throws {
        let item = Item.samples(1)[0]
        let data = try Self.archive(item, as: "Homepwner.Item")
        // The unqualified part matches the requested type: no registration needed.
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Item.self, from: data) == item)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClasses: [Item.self], from: data) as? Item == item)
    }

    @Test func explicitMappingRenamesOnTheWayIn() throws {
        let item = Item.samples(1)[0]
        let data = try Self.archive(item, as: "LegacyThing")
        let decoder = try KeyedDecoder(forReadingFrom: data)
        #expect(throws: KeyedArchiveError.self) { try decoder.decodeTopLevelObject(forKey: "root") }
        decoder.setClass(Item.self, forClassName: "LegacyThing")
        #expect(decoder.class(forClassName: "LegacyThing") == Item.self)
        #expect(try decoder.decode(Item.self, forKey: "root") == item)
    }

    @Test func ambiguousUnqualifiedNamesDoNotGuess() throws {
        enum Other {
            struct Item: KeyedSecureCoding {
                static var supportsSecureCoding: Bool { true }
                init(coder: KeyedDecoder) throws {}
                func encode(with coder: KeyedEncoder) {}
            }
        }
        let data = try Self.archive(Item.samples(1)[0], as: "Homepwner.Item")
        let decoder = try KeyedDecoder(forReadingFrom: data)
        decoder.allowClasses([Item.self, Other.Item.self])
        let error = #expect(throws: KeyedArchiveError.self) { try decoder.decodeTopLevelObject(forKey: "root") }
        #expect(error?.code == .unknownClass)
    }

    @Test func versionsAreReadPerClassOfTheChain() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: VersionedChild())
        let classEntry = try PropertyListReader().read(data)["$objects"]?.arrayValue?.first { $0["$classname"] != nil }
        #expect(classEntry?["$classversions"] == [3, 1, 0])
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: VersionedChild.self, from: data))
        #expect(decoded.childVersionSeen == 3)
        #expect(decoded.baseVersionSeen == 1)
        #expect(decoded.unqualifiedVersionSeen == 3, "matched without its module")
    }
}
