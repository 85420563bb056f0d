import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

/// The list `keepsake unarchive --classes` prints, on every keyed archive of the corpus
/// and on a Homepwner archive Foundation wrote: it decodes the archive under secure
/// decoding, and without any one of its classes the decode fails.
struct AllowListTests {
    static func expectListIsExact(_ bytes: [UInt8], _ usage: ArchiveClassUsage) {
        #expect(throws: Never.self, "the printed list decodes") {
            _ = try ArchiveClassUsage.simulate(bytes, allowing: usage.requiredClasses)
        }
        for removed in usage.requiredClasses {
            let error = #expect(throws: KeyedArchiveError.self, "\(removed) is needed") {
                _ = try ArchiveClassUsage.simulate(bytes, allowing: usage.requiredClasses.filter { $0 != removed })
            }
            #expect(error?.code == .classNotAllowed)
        }
    }

    @Test(.requiresCorpus, arguments: CorpusArchiveTests.readable)
    func printedListDecodesEachCorpusArchiveAndEveryClassIsNeeded(_ path: String) throws {
        let bytes = try Corpus.bytes(path)
        Self.expectListIsExact(bytes, try ArchiveClassUsage(archive: bytes))
    }

    /// Homepwner's items as the book's code archives them with Foundation (whose class
    /// name, `KeyedArchiveTests.FoundationItem`, swift-corelibs-foundation does not let
    /// a mapping change).
    static func homepwnerArchive() -> [UInt8] {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(Item.samples(5).map(FoundationItem.init) as NSArray, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return [UInt8](archiver.encodedData)
    }

    @Test func printedListForAHomepwnerArchiveIsExactAndDecodesTheItems() throws {
        let bytes = Self.homepwnerArchive()
        let usage = try ArchiveClassUsage(archive: bytes)
        #expect(usage.requiredClasses == [FoundationItem.archivedName, "NSArray", "NSDate"])
        #expect(usage.inlineClasses == ["NSString"])
        #expect(usage.uses.contains(.init(path: "root[].dateCreated", className: "NSDate", isInline: false)))
        #expect(usage.uses.contains(.init(path: "root[].name", className: "NSString", isInline: true)))
        Self.expectListIsExact(bytes, usage)
        // The real model reads its date with a typed call, which lists NSDate itself.
        let decoder = try KeyedDecoder(bytes: bytes)
        decoder.setClass(Item.self, forClassName: FoundationItem.archivedName)
        let items = decoder.decodeObject(of: [NSArray.self, Item.self], forKey: "root")
        #expect((items as? [Item])?.map(\.name) == Item.samples(5).map(\.name))
        #expect(decoder.error == nil)
    }

    @Test func simulationReportsFoundationsErrors() throws {
        let bytes = Self.homepwnerArchive()
        let refused = #expect(throws: KeyedArchiveError.self) {
            _ = try ArchiveClassUsage.simulate(bytes, allowing: ["NSArray"])
        }
        #expect(
            refused?.message.hasPrefix(
                "value for key 'NS.objects' was of unexpected class '\(FoundationItem.archivedName)'") == true)
        #expect(refused?.foundationErrorCode == 4864)
        let (objects, warnings) = try ArchiveClassUsage.simulate(
            bytes, allowing: ["NSArray", "NSDate", FoundationItem.archivedName])
        #expect(objects.map(\.key) == ["root"])
        // One warning per key and class: the items' three string fields.
        #expect(warnings.map(\.className) == ["NSString", "NSString", "NSString"])
        #expect(Set(warnings.map(\.key)) == ["name", "itemKey", "serialNumber"])
        let encoder = KeyedEncoder()
        encoder.encode(nil as String?, forKey: "root")
        let missing = #expect(throws: KeyedArchiveError.self) {
            _ = try ArchiveClassUsage.simulate([UInt8](try encoder.encodedData), allowing: ["NSObject"])
        }
        #expect(missing?.foundationErrorCode == 4865)
    }
}
