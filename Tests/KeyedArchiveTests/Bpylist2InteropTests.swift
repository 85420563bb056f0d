import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

/// Python's `bpylist2` as the second peer: it reads our archives and we read its.
@Suite(.enabled(if: Bpylist2Peer.isAvailable, Comment(rawValue: Bpylist2Peer.skipMessage)))
struct Bpylist2InteropTests {
    struct ItemRecord: Codable, Equatable {
        var name: String
        var dateCreated: Double
        var itemKey: String
        var serialNumber: String?
        var valueInDollars: Int

        init(_ item: Item) {
            name = item.name
            dateCreated = item.dateCreated.timeIntervalSinceReferenceDate
            itemKey = item.itemKey
            serialNumber = item.serialNumber
            valueInDollars = item.valueInDollars
        }
    }

    @Test func bpylist2ReadsOurItems() throws {
        let items = Item.samples(40)
        let encoder = KeyedEncoder()
        encoder.setClassName("PyItem", for: Item.self)
        encoder.encode(items, forKey: "root")
        let output = try Bpylist2Peer.run("read-items", input: encoder.encodedData)
        let records = try JSONDecoder().decode([ItemRecord].self, from: output)
        #expect(records == items.map(ItemRecord.init))
    }

    @Test func weReadBpylist2Items() throws {
        let items = Item.samples(40)
        let data = try Bpylist2Peer.run("write-items", input: JSONEncoder().encode(items.map(ItemRecord.init)))
        let decoder = try KeyedDecoder(forReadingFrom: data)
        decoder.setClass(Item.self, forClassName: "PyItem")
        #expect(try decoder.decode([Item].self, forKey: "root") == items)
    }

    /// A tree of the Foundation classes bpylist2 knows, as tagged JSON.
    static let tree = #"""
        ["D", {"title": ["s", "yo"], "count": ["i", 42], "ratio": ["r", 0.25], "active": ["b", true],
               "stamp": ["t", 509523358.5], "blob": ["d", "AAEC/w=="], "tags": ["S", [["s", "a"], ["s", "b"]]],
               "nested": ["a", [["a", []], ["D", {"k": ["s", "é日本"]}], ["i", -7]]]}]
        """#

    static func canonical(_ json: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: json)
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
    }

    /// Every class the tree holds, as Apple's secure decoding wants them listed.
    static let plistClasses: [Any.Type] = [
        NSDictionary.self, NSArray.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
    ]

    @Test func bpylist2ValuesDecodeToEqualValues() throws {
        let data = try Bpylist2Peer.run("write-value", input: Data(Self.tree.utf8))
        let root = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClasses: Self.plistClasses, from: data) as? [AnyHashable: Any])
        #expect(root["title"] as? String == "yo")
        #expect(root["count"] as? Int == 42)
        #expect(root["ratio"] as? Double == 0.25)
        #expect(root["active"] as? Bool == true)
        #expect((root["stamp"] as? Date)?.timeIntervalSinceReferenceDate == 509523358.5)
        #expect(root["blob"] as? Data == Data([0, 1, 2, 255]))
        #expect(root["tags"] as? Set<AnyHashable> == ["a", "b"])
        let nested = try #require(root["nested"] as? [Any])
        #expect((nested[0] as? [Any])?.isEmpty == true)
        #expect((nested[1] as? [AnyHashable: Any])?["k"] as? String == "é日本")
        #expect(nested[2] as? Int == -7)
    }

    @Test func ourValuesReadBackFromBpylist2Unchanged() throws {
        let value: PropertyListValue = [
            "title": "yo", "count": 42, "ratio": 0.25, "active": true,
            "stamp": .date(Date(timeIntervalSinceReferenceDate: 509523358.5)), "blob": .data(Data([0, 1, 2, 255])),
            "nested": [[], ["k": "é日本"], -7],
        ]
        let output = try Bpylist2Peer.run("read-value", input: KeyedArchiver.archivedData(withRootObject: value))
        // The expected tree is ours without its set, which PropertyListValue has no type for.
        let expected = Self.tree.replacingOccurrences(of: #""tags": ["S", [["s", "a"], ["s", "b"]]],"#, with: "")
        #expect(try Self.canonical(output) == Self.canonical(Data(expected.utf8)))
    }
}
