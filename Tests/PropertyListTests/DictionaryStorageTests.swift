import TestSupport
import Testing

@testable import PropertyList

/// Dictionaries read from a binary plist share storage blocks when their values hold no
/// containers; these tests change some of them and check that no other dictionary sees
/// the change, and that dictionaries holding containers read back whole.
struct DictionaryStorageTests {
    /// `count` records `{id, name, tags: {first, second}}`, written and read back: the
    /// records hold a dictionary, the tags do not.
    static func readRecords(_ count: Int) throws -> [PropertyListValue] {
        let records: [PropertyListValue] = (0..<count).map { id in
            [
                "id": .integer(Int64(id)), "name": .string("item \(id)"),
                "tags": ["first": .integer(Int64(id * 2)), "second": .string("t\(id)")],
            ]
        }
        return try #require(PropertyListReader().read(PropertyListWriter.binary.write(.array(records))).arrayValue)
    }

    static func checkRecord(_ record: PropertyListValue, id: Int) {
        let dictionary = record.dictionaryValue
        #expect(dictionary?.keys == ["id", "name", "tags"])
        #expect(dictionary?["id"] == .integer(Int64(id)))
        #expect(dictionary?["name"] == .string("item \(id)"))
        #expect(dictionary?["tags"]?.dictionaryValue?.keys == ["first", "second"])
        #expect(dictionary?["tags"]?["first"] == .integer(Int64(id * 2)))
        #expect(dictionary?["tags"]?["second"] == .string("t\(id)"))
    }

    @Test func aValueStaysSixteenBytesAndATag() {
        // Every array of values and every dictionary entry pays for a larger value.
        #expect(MemoryLayout<PropertyListDictionary>.size == 16)
        #expect(MemoryLayout<PropertyListValue>.size == 17)
    }

    @Test func aLargeReadDictionaryKeepsItsIndexThroughCopiesAndRemovals() throws {
        let pairs = (0..<40).map { ("key \($0)", PropertyListValue.integer(Int64($0))) }
        let back = try PropertyListReader().read(
            PropertyListWriter.binary.write(.dictionary(PropertyListDictionary(pairs))))
        var shrinking = try #require(back.dictionaryValue)
        let original = shrinking
        for i in 0..<35 { shrinking["key \(i)"] = nil }
        #expect(shrinking.keys == (35..<40).map { "key \($0)" })
        #expect(shrinking["key 36"] == 36)
        #expect(shrinking["key 3"] == nil)
        for i in 0..<20 { shrinking["again \(i)"] = .integer(Int64(i)) }
        #expect(shrinking.count == 25)
        #expect(shrinking["again 19"] == 19)
        #expect(shrinking["key 39"] == 39)
        #expect(original.count == 40)
        for (key, value) in pairs { #expect(original[key] == value) }
    }

    @Test func nestedRecordsAcrossManyBlocksReadBack() throws {
        // 10,000 records of 3 + 2 entries fill several blocks of 4,096 entries.
        let records = try Self.readRecords(10_000)
        #expect(records.count == 10_000)
        for (id, record) in records.enumerated() { Self.checkRecord(record, id: id) }
    }

    @Test func changingOneReadDictionaryLeavesItsNeighboursAlone() throws {
        var records = try Self.readRecords(3)
        var middle = try #require(records[1].dictionaryValue)
        middle["name"] = "renamed"
        middle["added"] = true
        middle["id"] = nil
        var tags = try #require(middle["tags"]?.dictionaryValue)
        tags["first"] = "changed"
        middle["tags"] = .dictionary(tags)
        records[1] = .dictionary(middle)

        Self.checkRecord(records[0], id: 0)
        Self.checkRecord(records[2], id: 2)
        #expect(middle.keys == ["name", "tags", "added"])
        #expect(middle["name"] == "renamed")
        #expect(middle["added"] == true)
        #expect(middle["tags"] == ["first": "changed", "second": "t1"])
    }

    @Test func aCopyChangesAloneAndTheOriginalKeepsItsEntries() throws {
        let records = try Self.readRecords(2)
        let original = try #require(records[0]["tags"]?.dictionaryValue)
        var copy = original
        copy["first"] = 99
        copy["second"] = nil
        for i in 0..<20 { copy["extra \(i)"] = .integer(Int64(i)) }

        Self.checkRecord(records[0], id: 0)
        Self.checkRecord(records[1], id: 1)
        #expect(original == ["first": 0, "second": "t0"])
        #expect(copy.count == 21)
        #expect(copy["first"] == 99)
        #expect(copy["extra 19"] == 19)
        #expect(copy["second"] == nil)
    }

    @Test func aDictionaryLargerThanABlockReadsBack() throws {
        var large = PropertyListDictionary()
        for i in 0..<(EntryArena.largestBlockCapacity + 10) { large["key \(i)"] = .integer(Int64(i)) }
        let value: PropertyListValue = [["small": 1], .dictionary(large), ["small": 2]]
        let back = try PropertyListReader().read(PropertyListWriter.binary.write(value))
        let elements = try #require(back.arrayValue)
        #expect(elements[0] == ["small": 1])
        #expect(elements[2] == ["small": 2])
        let read = try #require(elements[1].dictionaryValue)
        #expect(read.count == large.count)
        #expect(read.keys == large.keys)
        #expect(
            read["key \(EntryArena.largestBlockCapacity + 9)"] == .integer(Int64(EntryArena.largestBlockCapacity + 9)))
    }

    @Test func removingEveryEntryOfAReadDictionaryEmptiesOnlyIt() throws {
        let records = try Self.readRecords(2)
        var tags = try #require(records[0]["tags"]?.dictionaryValue)
        for key in tags.keys { tags[key] = nil }
        #expect(tags.isEmpty)
        #expect(tags == PropertyListDictionary())
        Self.checkRecord(records[0], id: 0)
        Self.checkRecord(records[1], id: 1)
    }

    @Test func aFailedReadAfterSomeRecordsIsATypedError() throws {
        // [{a: 1}, {a: "x", b: <reference to object 9, which does not exist>}]
        let bytes = BinaryPlistBytes.build(objects: [
            [0xA2, 0x01, 0x02],
            [0xD1, 0x03, 0x04],
            [0xD2, 0x03, 0x05, 0x06, 0x09],
            [0x51, 0x61], [0x10, 0x01], [0x51, 0x62], [0x51, 0x78],
        ])
        let error = #expect(throws: PropertyListError.self) { try PropertyListReader().read(bytes) }
        #expect(error?.code == .referenceOutOfRange)
    }
}
