import Foundation
import Testing

@testable import KeyedArchive

/// Any Codable value to and from a keyed archive, stored as Foundation's property-list
/// classes the way Foundation's `encodeEncodable` stores it.
struct CodableBridgeTests {
    struct Inventory: Codable, Equatable {
        enum Kind: String, Codable { case tool, toy }
        struct Entry: Codable, Equatable {
            var name: String
            var serialNumber: String?
            var valueInDollars: Int
            var dateCreated: Date
            var photo: Data?
            var kind: Kind
            var tags: [String]
            var ratio: Float
        }
        var owner: String
        var entries: [Entry]
        var byName: [String: Int]
        var missing: Int?
        var nested: [[Double]]
    }

    static let inventory = Inventory(
        owner: "Christian",
        entries: [
            .init(
                name: "Spork", serialNumber: nil, valueInDollars: 3,
                dateCreated: Date(timeIntervalSinceReferenceDate: 100.5),
                photo: Data([1, 2]), kind: .tool, tags: ["a", "b"], ratio: 0.5),
            .init(
                name: "Bear", serialNumber: "B1", valueInDollars: -1,
                dateCreated: Date(timeIntervalSinceReferenceDate: 0),
                photo: nil, kind: .toy, tags: [], ratio: 2),
        ],
        byName: ["Spork": 0, "Bear": 1], missing: nil, nested: [[1, 2.5], []])

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func codableValueRoundTrips(_ format: PropertyListFormat) throws {
        let data = try KeyedArchiver.archivedData(withRootEncodable: Self.inventory, format: format)
        #expect(try KeyedUnarchiver.unarchivedDecodable(Inventory.self, from: data) == Self.inventory)
    }

    @Test func storedAsFoundationPropertyListClasses() throws {
        let data = try KeyedArchiver.archivedData(withRootEncodable: Self.inventory)
        // Foundation reads it as plain NSDictionary / NSArray / NSString / NSNumber / NSDate.
        let root = try #require(try FoundationPeer.unarchive(data) as? [String: Any])
        #expect(root["owner"] as? String == "Christian")
        let entries = try #require(root["entries"] as? [[String: Any]])
        #expect(entries[0]["dateCreated"] as? Date == Date(timeIntervalSinceReferenceDate: 100.5))
        #expect(entries[0]["photo"] as? Data == Data([1, 2]))
        #expect(entries[1]["kind"] as? String == "toy")
        #expect(root["byName"] as? [String: Int] == ["Spork": 0, "Bear": 1])
    }

    @Test func encodeEncodableBesideOtherKeys() throws {
        let encoder = KeyedEncoder()
        try encoder.encodeEncodable(Self.inventory.entries[0], forKey: "entry")
        encoder.encode(Item.samples(1), forKey: "items")
        let decoder = try KeyedDecoder(bytes: encoder.encodedBytes)
        #expect(decoder.decodeDecodable(Inventory.Entry.self, forKey: "entry") == Self.inventory.entries[0])
        #expect(try decoder.decode([Item].self, forKey: "items") == Item.samples(1))
        #expect(decoder.decodeDecodable(Inventory.self, forKey: "absent") == nil)
        #expect(decoder.decodeDecodable(Inventory.self, forKey: "entry") == nil)
        #expect(decoder.error?.code == .typeMismatch)
    }

    @Test func foundationsPlistShapeDecodes() throws {
        // What Foundation's encodeEncodable writes on Darwin: PropertyListEncoder's tree,
        // nil as "$null", archived as property-list classes.
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        let plist = try PropertyListSerialization.propertyList(
            from: PropertyListEncoder().encode(Self.inventory), format: nil)
        archiver.encode(plist, forKey: "root")
        archiver.finishEncoding()
        #expect(try KeyedUnarchiver.unarchivedDecodable(Inventory.self, from: archiver.encodedData) == Self.inventory)
    }
}
