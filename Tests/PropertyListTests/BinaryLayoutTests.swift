import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// How the binary writer lays out objects, and how the reader takes dictionaries whose
/// keys repeat as objects of their own, as Foundation writes them.
struct BinaryLayoutTests {
    /// Records with shared and unique strings, numbers, dates, data and nested containers.
    static func records(_ count: Int) -> PropertyListValue {
        .array((0..<count).map(record))
    }

    static func record(_ id: Int) -> PropertyListValue {
        let names = ["Fluffy Bear", "Rusty Spork", "Shiny Mac"]
        let photo: PropertyListValue = [
            "bytes": .data(Data([UInt8(id % 256), 1, 2])), "size": .integer(Int64(id * 1_000)),
        ]
        let tags: PropertyListValue = .array([.string("tag \(id % 5)"), .bool(id % 2 == 0)])
        return [
            "name": .string(names[id % 3]),
            "serialNumber": .string(String(id * 7919, radix: 16, uppercase: true)),
            "valueInDollars": .integer(Int64(id % 100)),
            "dateCreated": .date(Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(id))),
            "tags": tags,
            "photo": photo,
        ]
    }

    /// The offset of each object, by number, from a binary plist's trailer and table.
    static func offsets(of bytes: [UInt8]) -> [Int] {
        func number(at start: Int, width: Int) -> Int {
            bytes[start..<start + width].reduce(0) { $0 << 8 | Int($1) }
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let count = number(at: trailer + 8, width: 8)
        let table = number(at: trailer + 24, width: 8)
        return (0..<count).map { number(at: table + $0 * offsetSize, width: offsetSize) }
    }

    @Test("Objects are laid out depth-first in reading order: each starts after the one numbered before it")
    func objectsFollowTheirNumbers() throws {
        let offsets = Self.offsets(of: try PropertyListWriter.binary.write(Self.records(300)))
        #expect(offsets.first == 8, "the root object follows the header")
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// plistlib numbers objects depth-first, a dictionary's keys before its values, and
    /// writes them in that order, as CoreFoundation does.
    @Test(
        "plistlib writes, from what it reads of our binary file, the same bytes",
        .enabled(if: PythonPeer.isAvailable, Comment(rawValue: PythonPeer.skipMessage)))
    func plistlibRewritesOurFileByteForByte() throws {
        let ours = try PropertyListWriter.binary.write(Self.records(500))
        let theirs = try Python.run(
            """
            import plistlib, sys
            value = plistlib.loads(sys.stdin.buffer.read())
            sys.stdout.buffer.write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False))
            """, input: Data(ours))
        #expect(Array(theirs) == ours)
    }

    /// Foundation writes every record's keys as objects of their own, in an order that
    /// changes from record to record; the reader takes them by their bytes.
    @Test("A file of Foundation's, keys not shared and in every order, reads as Foundation reads it")
    func foundationsUnsharedKeysRead() throws {
        let records: [[String: Any]] = (0..<600).map { id in
            ["name": "item \(id)", "valueInDollars": id, "serialNumber": "S\(id)", "itemKey": "key-\(id)", "n": id % 7]
        }
        let file = try PropertyListSerialization.data(fromPropertyList: records, format: .binary, options: 0)
        let read = try #require(try PropertyListReader().read(Array(file)).arrayValue)
        try #require(read.count == records.count)
        for (id, record) in read.enumerated() {
            let dictionary = try #require(record.dictionaryValue)
            #expect(Set(dictionary.keys) == ["name", "valueInDollars", "serialNumber", "itemKey", "n"])
            #expect(dictionary["name"] == .string("item \(id)"))
            #expect(dictionary["valueInDollars"] == .integer(Int64(id)))
            #expect(dictionary["serialNumber"] == .string("S\(id)"))
            #expect(dictionary["itemKey"] == .string("key-\(id)"))
            #expect(dictionary["n"] == .integer(Int64(id % 7)))
        }
    }

    /// Three dictionaries after one another, each with key objects of its own: the keys
    /// of the first in another order, then one key twice. Each reads as it does alone.
    @Test("A dictionary reads the same after another with equal keys as it does alone", arguments: [1, 2, 3])
    func aDictionaryReadsTheSameAfterAnother(top: Int) throws {
        let objects: [[UInt8]] = [
            [0xA3, 1, 2, 3],
            [0xD2, 4, 5, 10, 11],  // {a: 1, b: 2}
            [0xD2, 6, 7, 10, 11],  // {b: 1, a: 2}
            [0xD2, 8, 9, 10, 11],  // a twice
            [0x51, 0x61], [0x51, 0x62], [0x51, 0x62], [0x51, 0x61], [0x51, 0x61], [0x51, 0x61],
            [0x10, 1], [0x10, 2],
        ]
        func document(top: Int) -> [UInt8] {
            var bytes = Array("bplist00".utf8)
            var offsets: [UInt8] = []
            for object in objects {
                offsets.append(UInt8(bytes.count))
                bytes += object
            }
            let table = bytes.count
            bytes += offsets + [0, 0, 0, 0, 0, 0, 1, 1]
            for number in [objects.count, top, table] {
                bytes += withUnsafeBytes(of: UInt64(number).bigEndian, Array.init)
            }
            return bytes
        }
        let inSequence = try #require(try PropertyListReader().read(document(top: 0)).arrayValue)
        let alone = try PropertyListReader().read(document(top: top))
        #expect(inSequence[top - 1] == alone)
        if top == 2 { #expect(alone == ["b": .integer(1), "a": .integer(2)]) }
    }
}
