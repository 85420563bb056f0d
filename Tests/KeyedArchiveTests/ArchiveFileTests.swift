import AppSandbox
import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

#if canImport(Glibc)
import Glibc
#endif

/// The seeds' file one-liners: `archiveRootObject(_:toFile:)` and
/// `unarchiveObject(withFile:)`, written through the sandbox's durable replace.
struct ArchiveFileTests {
    let folder = TemporaryDirectory("archive-files")

    var itemArchiveURL: URL { folder.file("items.archive") }

    func leftovers() throws -> [String] {
        try folder.names().filter { $0 != "items.archive" }
    }

    @Test func seedsSaveAndLoadRoundTrip() throws {
        let allItems = Item.samples(12)
        #expect(KeyedArchiver.archiveRootObject(allItems, toFile: itemArchiveURL.path))
        let archivedItems = KeyedUnarchiver.unarchiveObject(withFile: itemArchiveURL.path) as? [Item]
        #expect(archivedItems == allItems)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [Item].self, contentsOf: itemArchiveURL) == allItems)
        #expect(try leftovers().isEmpty)
    }

    @Test func firstLaunchHasNoArchive() throws {
        #expect(KeyedUnarchiver.unarchiveObject(withFile: itemArchiveURL.path) == nil)
        let error = #expect(throws: SandboxError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: [Item].self, contentsOf: itemArchiveURL)
        }
        #expect(error?.code == .noSuchFile)
    }

    @Test func damagedArchiveIsAnArchiveErrorNotAFirstLaunch() throws {
        try Data("bplist00 and then nothing sensible".utf8).write(to: itemArchiveURL)
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: [Item].self, contentsOf: itemArchiveURL)
        }
        #expect(error?.code == .invalidPropertyList)
        #expect(KeyedUnarchiver.unarchiveObject(withFile: itemArchiveURL.path) == nil)
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func archiveWritesTheFormatAskedFor(_ format: PropertyListFormat) throws {
        try KeyedArchiver.archive(Item.samples(3), to: itemArchiveURL, format: format)
        #expect(PropertyListFormat.detect([UInt8](try Data(contentsOf: itemArchiveURL))) == format)
    }

    @Test(arguments: [ENOSPC, EIO, EROFS])
    func failedSaveKeepsThePreviousArchive(_ errno: Int32) throws {
        let saved = Item.samples(4)
        try KeyedArchiver.archive(saved, to: itemArchiveURL)
        let before = try Data(contentsOf: itemArchiveURL)

        var calls = SystemCalls.live
        calls.fsync = { _ throws(Errno) in throw Errno(errno) }
        #expect(throws: SandboxError.self) {
            try KeyedArchiver.archive(Item.samples(9), to: itemArchiveURL, fileSystem: FileSystem(system: calls))
        }
        #expect(try Data(contentsOf: itemArchiveURL) == before)
        #expect(try leftovers().isEmpty)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [Item].self, contentsOf: itemArchiveURL) == saved)
    }

    @Test func unarchivableGraphWritesNothing() throws {
        try KeyedArchiver.archive(Item.samples(2), to: itemArchiveURL)
        let before = try Data(contentsOf: itemArchiveURL)
        // A graph the archiver refuses (deeper than the limit) fails before the file is touched.
        var node = Node(value: 0)
        for value in 1...300 { node = Node(value: value, next: node) }
        #expect(!KeyedArchiver.archiveRootObject(node, toFile: itemArchiveURL.path))
        #expect(try Data(contentsOf: itemArchiveURL) == before)
    }
}
