import Foundation
import KeyedArchive
import Testing

/// The renderer behind `keepsake unarchive`, without the command: its bounds and its
/// streaming. The command's own tests run the hostile archives through the binary.
struct ArchiveRendererTests {
    typealias Builder = ArchiveBuilder

    /// A chain of `links` objects of class Foo.
    static func chain(_ links: Int) -> [UInt8] {
        var objects: [PropertyListValue] = ["$null"]
        for index in 1...links {
            objects.append(["$class": Builder.uid(links + 1), "next": Builder.uid(index < links ? index + 1 : 0)])
        }
        objects.append(Builder.classEntry("Foo"))
        return Builder.archive(objects)
    }

    @Test func valuesReachedCountAgainstTheLimit() throws {
        let bytes = Self.chain(50)
        #expect(
            try ArchiveRenderer.render(bytes, as: .text, limits: PropertyListLimits(maxObjectCount: 1_000)).count > 0)
        let error = #expect(throws: KeyedArchiveError.self) {
            try ArchiveRenderer.render(bytes, as: .json, limits: PropertyListLimits(maxObjectCount: 40))
        }
        #expect(error?.code == .limitExceeded)
    }

    /// One 10 KB string referenced 100 times reads as 10 KB but writes 1 MB: the output
    /// is bounded, not only the reading.
    @Test(arguments: [ArchiveRenderer.Format.text, .json, .propertyList(.binary)])
    func outputCountsAgainstTheByteLimit(_ format: ArchiveRenderer.Format) throws {
        let text = String(repeating: "x", count: 10_000)
        let bytes = Builder.archive([
            "$null", ["$class": Builder.uid(2), "NS.objects": .array(Array(repeating: Builder.uid(3), count: 100))],
            Builder.classEntry("NSArray"), .string(text),
        ])
        #expect(try ArchiveRenderer.render(bytes, as: format).count > 10_000)
        let error = #expect(throws: KeyedArchiveError.self) {
            try ArchiveRenderer.render(bytes, as: format, limits: PropertyListLimits(maxByteCount: 200_000))
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message == "the output is larger than 200000 bytes", "\(String(describing: error))")
    }

    @Test func propertyListsStayWithinTheDepthLimitTextDoesNot() throws {
        let bytes = Self.chain(20)
        let limits = PropertyListLimits(maxDepth: 16)
        #expect(try ArchiveRenderer.render(bytes, as: .text, limits: limits).count > 0)
        let error = #expect(throws: KeyedArchiveError.self) {
            try ArchiveRenderer.render(bytes, as: .propertyList(.xml), limits: limits)
        }
        #expect(error?.code == .limitExceeded)
        // What is written within the limit reads back within it.
        let written = try ArchiveRenderer.render(Self.chain(10), as: .propertyList(.binary), limits: limits)
        #expect(try PropertyListReader(limits: limits).read(written)["root"]?["$class"] == "Foo")
    }

    @Test func textIndentsAtMost32LevelsAndNumbersDeeperLines() throws {
        let text = String(decoding: try ArchiveRenderer.render(Self.chain(40), as: .text), as: UTF8.self)
        let lines = text.split(separator: "\n")
        let padding = String(repeating: "  ", count: 32)
        #expect(lines.contains { $0 == padding + "\"next\" => <Foo #33> {" })
        #expect(lines.contains { $0 == padding + "(33) \"next\" => <Foo #34> {" })
        #expect(lines.contains { $0 == padding + "(40) \"next\" => nil" })
        #expect(lines.contains { $0 == padding + "(33) }" })
    }

    @Test func streamedChunksAddUpToTheWholeRendering() throws {
        let bytes = Self.chain(30)
        for format in [ArchiveRenderer.Format.text, .json] {
            var chunks: [[UInt8]] = []
            try ArchiveRenderer.render(bytes, as: format, chunkSize: 64) { chunks.append($0) }
            #expect(chunks.count > 10, "not streamed")
            #expect(chunks.flatMap { $0 } == (try ArchiveRenderer.render(bytes, as: format)))
        }
    }

    /// A malformed entry anywhere fails before the first chunk is handed out.
    @Test func malformedEntriesFailBeforeAnythingIsWritten() throws {
        var objects: [PropertyListValue] = ["$null"]
        for index in 1...30 { objects.append(["$class": Builder.uid(32), "next": Builder.uid(index + 1)]) }
        objects.append(["$class": Builder.uid(99)])
        objects.append(Builder.classEntry("Foo"))
        var chunks = 0
        let error = #expect(throws: KeyedArchiveError.self) {
            try ArchiveRenderer.render(Builder.archive(objects), as: .text, chunkSize: 1) { _ in chunks += 1 }
        }
        #expect(error?.code == .uidOutOfRange)
        #expect(chunks == 0)
    }

    /// Foundation's own archive of items, whose writer stores every key string once per
    /// object and every string as an ASCII object: each item comes back in the JSON with
    /// its fields, read from keys compared and strings shown in place.
    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func foundationsItemArchiveRendersEveryItem(_ format: PropertyListSerialization.PropertyListFormat) throws {
        let items = Item.samples(300)
        let data = FoundationPeer.archive(items.map(FoundationItem.init), format: format)
        let json = try JSONSerialization.jsonObject(with: Data(try ArchiveRenderer.render([UInt8](data), as: .json)))
        let rendered = try #require((json as? [String: Any])?["root"] as? [[String: Any]])
        #expect(rendered.count == items.count)
        for (item, object) in zip(items, rendered) {
            #expect(object["$class"] as? String == FoundationItem.archivedName)
            #expect(object["name"] as? String == item.name)
            #expect(object["itemKey"] as? String == item.itemKey)
            #expect(object["serialNumber"] as? String == item.serialNumber)
            #expect(object["valueInDollars"] as? Int == item.valueInDollars)
            let date = try #require((object["dateCreated"] as? [String: String])?["$date"])
            #expect(date == ISO8601DateFormatter().string(from: item.dateCreated))
        }
    }

    /// More distinct keys than the decoder's key cache has slots, so keys share slots:
    /// every field keeps its own name and value.
    @Test func objectsWithManyKeysKeepEveryField() throws {
        let keys = (0..<600).map { "field\($0)" }
        let fields = [("$class", Builder.uid(2))] + keys.enumerated().map { ($1, PropertyListValue.integer(Int64($0))) }
        let bytes = Builder.archive(["$null", .dictionary(PropertyListDictionary(fields)), Builder.classEntry("Wide")])
        let json = try JSONSerialization.jsonObject(with: Data(try ArchiveRenderer.render(bytes, as: .json)))
        let root = try #require((json as? [String: Any])?["root"] as? [String: Any])
        for (position, key) in keys.enumerated() { #expect(root[key] as? Int == position, "\(key)") }
    }

    /// JSON dates are ISO 8601 text within the years 0 to 9999, whose text has four
    /// digits, and seconds since 2001 outside them, as `keepsake unarchive --help` says.
    @Test func jsonDatesOutsideFourDigitYearsAreSeconds() throws {
        let firstOfYear0 = -63_145_526_400.0
        let firstOfYear10000 = 252_423_993_600.0
        let dates: PropertyListValue = [
            .date(Date(timeIntervalSinceReferenceDate: firstOfYear0 - 1)),
            .date(Date(timeIntervalSinceReferenceDate: firstOfYear0)),
            .date(Date(timeIntervalSinceReferenceDate: firstOfYear10000 - 1)),
            .date(Date(timeIntervalSinceReferenceDate: firstOfYear10000)),
        ]
        let data = try KeyedArchiver.archivedData(withRootObject: dates)
        let json = try JSONSerialization.jsonObject(with: Data(try ArchiveRenderer.render([UInt8](data), as: .json)))
        let root = try #require((json as? [String: Any])?["root"] as? [[String: Any]])
        #expect(root.map { $0["$date"] as? Double } == [firstOfYear0 - 1, nil, nil, firstOfYear10000])
        #expect(root.map { $0["$date"] as? String } == [nil, "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", nil])
    }
}
