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
}
