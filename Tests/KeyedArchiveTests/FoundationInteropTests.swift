import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

/// Foundation's `NSKeyedArchiver` on this machine as the peer: the same graph archived
/// by both gives the same archive, each side reads the other's archives to equal values.
struct FoundationInteropTests {
    static let when = Date(timeIntervalSinceReferenceDate: 600_000_123.25)
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    /// Graphs of Foundation value classes that both archivers number the same way (no
    /// dictionaries or sets, whose order is unspecified), given to each as `[Any]`.
    static func orderedGraph(_ name: String) -> [Any] {
        switch name {
        case "strings": ["a", "b", "a", ""]
        case "numbers": [1, -5, 2.5, Int.max, 1]
        case "nested arrays": [["x", "y"], ["x"], [String]()]
        case "date, data, uuid, url": [when, Data([1, 2, 3]), uuid, URL(string: "https://example.com/a?b=c")!]
        default: ["é", "日本語", "🦆"]
        }
    }

    @Test(arguments: ["strings", "numbers", "nested arrays", "date, data, uuid, url", "unicode"])
    func sameGraphGivesTheSameArchiveAsFoundation(_ name: String) throws {
        let encoder = KeyedEncoder()
        encoder.encode(Self.orderedGraph(name) as Any?, forKey: "root")
        let ours = try encoder.encodedPropertyList
        let theirs = try PropertyListReader().read(FoundationPeer.archive(Self.orderedGraph(name)))
        #expect(ours == theirs)
    }

    @Test func itemArchiveMatchesFoundationsLayout() throws {
        let items = Item.samples(3)
        let encoder = KeyedEncoder()
        encoder.setClassName(FoundationItem.archivedName, for: Item.self)
        encoder.encode(items, forKey: "root")
        let theirs = try PropertyListReader().read(FoundationPeer.archive(items.map(FoundationItem.init)))
        #expect(try encoder.encodedPropertyList == theirs)
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func foundationReadsOurItems(_ format: PropertyListFormat) throws {
        let items = Item.samples(50)
        let encoder = KeyedEncoder(outputFormat: format)
        encoder.setClassName(FoundationItem.archivedName, for: Item.self)
        encoder.encode(items, forKey: "root")
        let decoded = try #require(try FoundationPeer.unarchive(encoder.encodedData) as? [FoundationItem])
        #expect(decoded.map(\.item) == items)
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func weReadFoundationsItems(_ format: PropertyListSerialization.PropertyListFormat) throws {
        let items = Item.samples(50)
        let data = FoundationPeer.archive(items.map(FoundationItem.init), format: format)
        let decoder = try KeyedDecoder(forReadingFrom: data)
        decoder.setClass(Item.self, forClassName: FoundationItem.archivedName)
        #expect(try decoder.decode([Item].self, forKey: "root") == items)
    }

    @Test func foundationValuesRoundTripBothWays() throws {
        let dictionary: [String: Int] = ["one": 1, "two": 2]
        let set: Set<String> = ["x", "y", "z"]
        let relative = URL(string: "b/c.txt", relativeTo: URL(string: "https://example.com/a/"))!

        // Ours → Foundation.
        let encoder = KeyedEncoder()
        encoder.encode(dictionary, forKey: "dictionary")
        encoder.encode(set, forKey: "set")
        encoder.encode(relative, forKey: "url")
        encoder.encode(Self.uuid, forKey: "uuid")
        encoder.encode(Int64.min, forKey: "min")
        encoder.encode(UInt64.max as UInt64?, forKey: "max")
        encoder.encode(Float(1.5), forKey: "float")
        encoder.encode(true, forKey: "flag")
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: encoder.encodedData)
        unarchiver.requiresSecureCoding = false
        #expect(unarchiver.decodeObject(forKey: "dictionary") as? [String: Int] == dictionary)
        #expect(unarchiver.decodeObject(forKey: "set") as? Set<String> == set)
        #expect((unarchiver.decodeObject(forKey: "url") as? URL)?.absoluteString == relative.absoluteString)
        #expect(unarchiver.decodeObject(forKey: "uuid") as? UUID == Self.uuid)
        #expect(unarchiver.decodeInt64(forKey: "min") == Int64.min)
        #expect((unarchiver.decodeObject(forKey: "max") as? NSNumber)?.uint64Value == UInt64.max)
        #expect(unarchiver.decodeFloat(forKey: "float") == 1.5)
        #expect(unarchiver.decodeBool(forKey: "flag"))

        // Foundation → ours.
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(dictionary, forKey: "dictionary")
        archiver.encode(set, forKey: "set")
        archiver.encode(relative, forKey: "url")
        archiver.encode(Self.uuid, forKey: "uuid")
        archiver.encode(Int64.min, forKey: "min")
        archiver.encode(Float(1.5), forKey: "float")
        archiver.encode(true, forKey: "flag")
        archiver.encode(NSMutableArray(array: ["m"]), forKey: "mutable")
        archiver.encode(NSMutableData(bytes: [9, 8] as [UInt8], length: 2), forKey: "mdata")
        archiver.finishEncoding()
        let decoder = try KeyedDecoder(forReadingFrom: archiver.encodedData)
        #expect(try decoder.decode([String: Int].self, forKey: "dictionary") == dictionary)
        #expect(try decoder.decode(Set<String>.self, forKey: "set") == set)
        #expect(try decoder.decode(URL.self, forKey: "url").absoluteString == relative.absoluteString)
        #expect(try decoder.decode(UUID.self, forKey: "uuid") == Self.uuid)
        #expect(decoder.decodeInt64(forKey: "min") == Int64.min)
        #expect(decoder.decodeFloat(forKey: "float") == 1.5)
        #expect(decoder.decodeBool(forKey: "flag"))
        #expect(try decoder.decode([String].self, forKey: "mutable") == ["m"])
        #expect(try decoder.decode(Data.self, forKey: "mdata") == Data([9, 8]))
        #expect(decoder.error == nil)
    }

    /// Archives Foundation wrote on macOS (its own test fixtures) against what
    /// Foundation on this machine reads from them.
    static let fixtures = [
        "NSKeyedUnarchiver-ArrayTest.plist", "NSKeyedUnarchiver-URLTest.plist", "NSKeyedUnarchiver-UUIDTest.plist",
        "Fixtures_macOS-10.14_NSSet-Numbers.archive", "Fixtures_macOS-10.14_NSMutableSet-Numbers.archive",
        "Fixtures_macOS-10.14_NSSet-Empty.archive",
    ]

    @Test(.requiresCorpus, arguments: fixtures)
    func appleFixturesDecodeLikeFoundation(_ name: String) throws {
        let data = try Corpus.data("archives/apple/swift-corelibs-foundation/Tests_Foundation_Resources_" + name)
        let theirs = try FoundationPeer.unarchive(data)
        let ours = try KeyedUnarchiver.unarchivedObject(
            ofClasses: [NSArray.self, NSSet.self, NSString.self, NSNumber.self, NSURL.self, NSUUID.self], from: data)
        switch (ours, theirs) {
        case (let ours as [Any], let theirs as NSArray):
            #expect(ours as? [String] == theirs as? [String])
        case (let ours as URL, let theirs as URL):
            #expect(ours.absoluteString == theirs.absoluteString)
        case (let ours as UUID, let theirs as UUID):
            #expect(ours == theirs)
        case (let ours as Set<AnyHashable>, let theirs as NSSet):
            #expect(Set(ours.compactMap { $0.base as? Int }) == Set(theirs.compactMap { ($0 as? NSNumber)?.intValue }))
            #expect(ours.count == theirs.count)
        default:
            Issue.record("unexpected pair: \(String(describing: ours)) / \(String(describing: theirs))")
        }
    }
}
