import AppLifecycle
import AppSandbox
import Foundation
import TestSupport
import Testing

@testable import AppStores

#if canImport(Glibc)
import Glibc
#endif

@Suite struct BlobStoreTests {
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46])
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00])

    func makeStore(_ container: AppContainer, center: NotificationCenter = NotificationCenter()) throws -> BlobStore {
        try BlobStore(container: container, cache: MemoryCache(totalCostLimit: 1 << 20, notificationCenter: center))
    }

    @Test func setWritesAtOnceAndSurvivesARestart() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blobs")
        defer { try? container.destroy() }
        try makeStore(container).set(Self.jpeg, forKey: "photo-1")
        let file = container.documentsDirectory.appendingPathComponent("images/photo-1")
        #expect(
            FileManager.default.contents(atPath: file.path) == Self.jpeg, "set must write the file, not only cache it")
        let reopened = try makeStore(container)
        #expect(try reopened.data(forKey: "photo-1") == Self.jpeg)
        #expect(try reopened.allKeys() == ["photo-1"])
        #expect(try reopened.url(forKey: "photo-1").standardizedFileURL.path == file.standardizedFileURL.path)
    }

    @Test func readsComeFromTheCacheThenTheDisk() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blobs")
        defer { try? container.destroy() }
        let center = NotificationCenter()
        let store = try makeStore(container, center: center)
        try store.set(Self.png, forKey: "k")
        // Filed: the journal no longer holds the blob, so reads go to the cache and the file.
        try store.flush()
        // Change the file behind the store's back: a cached read does not see it…
        try Data("changed".utf8).write(to: container.documentsDirectory.appendingPathComponent("images/k"))
        #expect(try store.data(forKey: "k") == Self.png)
        // …until a memory warning empties the cache and the read goes to disk.
        MemoryWarning.post(to: center)
        #expect(store.cache.count == 0)
        #expect(try store.data(forKey: "k") == Data("changed".utf8))
        #expect(store.cache.count == 1, "a disk read is cached")
        #expect(try store.data(forKey: "missing") == nil)
    }

    @Test func deleteRemovesFileAndCacheEntry() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blobs")
        defer { try? container.destroy() }
        let store = try makeStore(container)
        try store.set(Self.jpeg, forKey: "k")
        try store.delete(forKey: "k")
        #expect(store.cache.object(forKey: "k") == nil)
        #expect(
            !FileManager.default.fileExists(
                atPath: container.documentsDirectory.appendingPathComponent("images/k").path))
        #expect(try store.data(forKey: "k") == nil)
        #expect(!store.contains(key: "k"))
        try store.delete(forKey: "k")  // nothing left: not an error
    }

    @Test("A delete is durable before it returns: a failed journal fsync is reported, and the blob stays")
    func deleteIsDurable() throws {
        let faults = try WritePathFaults()
        defer { faults.destroy() }
        do {
            let store = try BlobStore(
                container: faults.container, cache: MemoryCache(notificationCenter: NotificationCenter()))
            try store.set(Self.jpeg, forKey: "k")
            let journal = faults.container.documentsDirectory.appendingPathComponent("images.journal")
            let durable = try Data(contentsOf: journal)
            faults.arm(.journalFsync)
            let error = #expect(throws: StoreError.self) { try store.delete(forKey: "k") }
            #expect(faults.fired(.journalFsync), "the delete must sync the journal")
            #expect(try Data(contentsOf: journal) == durable, "the failed record is cut off before the error")
            #expect(error?.code == .deleteFailed && error?.sandboxCode == .ioError)
            #expect(try store.data(forKey: "k") == Self.jpeg, "a delete that failed leaves the blob")
            try store.delete(forKey: "k")
            #expect(!store.contains(key: "k"))
        }
        let reopened = try BlobStore(
            container: faults.container, cache: MemoryCache(notificationCenter: NotificationCenter()))
        #expect(try reopened.data(forKey: "k") == nil, "the acknowledged delete holds after a restart")
    }

    @Test(arguments: NameValidator.separatorLookAlikes.sorted { $0.value < $1.value }.map(String.init))
    func keysWithSeparatorLookAlikesAreRefused(lookAlike: String) throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blobs")
        defer { try? container.destroy() }
        let error = #expect(throws: StoreError.self) {
            try makeStore(container).set(Self.jpeg, forKey: "a\(lookAlike)b")
        }
        #expect(error?.code == .invalidKey)
    }

    @Test(arguments: [
        "../escape", "/etc/passwd", "a/b", "..", ".", "", "x\u{0}y", String(repeating: "k", count: 256),
        ".keepsake-1.tmp",
    ])
    func keysThatLeaveTheFolderAreRefused(key: String) throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blobs")
        defer { try? container.destroy() }
        let store = try makeStore(container)
        let error = #expect(throws: StoreError.self) { try store.set(Self.jpeg, forKey: key) }
        #expect(error?.code == .invalidKey)
        #expect(throws: StoreError.self) { try store.data(forKey: key) }
        #expect(throws: StoreError.self) { try store.delete(forKey: key) }
        let outside = container.url.deletingLastPathComponent().appendingPathComponent("escape")
        #expect(!FileManager.default.fileExists(atPath: outside.path))
    }

    @Test func linkPointingOutOfTheFolderIsRefused() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blobs")
        defer { try? container.destroy() }
        let store = try makeStore(container)
        // A folder beside the container, not in it, so the link points out of the container.
        let elsewhere = TemporaryDirectory("keepsake-outside")
        defer { elsewhere.remove() }
        let outside = elsewhere.file("secret")
        try Data("secret".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(
            at: container.documentsDirectory.appendingPathComponent("images/link"), withDestinationURL: outside)
        let error = #expect(throws: StoreError.self) { try store.data(forKey: "link") }
        #expect(error?.code == .invalidKey)
        #expect(throws: StoreError.self) { try store.set(Data("overwrite".utf8), forKey: "link") }
        #expect(try Data(contentsOf: outside) == Data("secret".utf8), "the file outside must be untouched")
    }

    @Test func imageKindComesFromTheBytes() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blobs")
        defer { try? container.destroy() }
        let store = try makeStore(container)
        try store.set(Self.jpeg, forKey: "a.png")  // the name says PNG, the bytes say JPEG
        try store.set(Self.png, forKey: "b")
        try store.set(Data("GIF89a".utf8), forKey: "c")
        #expect(try store.imageKind(forKey: "a.png") == .jpeg)
        #expect(try store.imageKind(forKey: "b") == .png)
        #expect(try store.imageKind(forKey: "c") == .unknown)
        #expect(try store.imageKind(forKey: "none") == nil)
        #expect(ImageKind(bytes: [0xFF, 0xD8]) == .unknown, "too short to be a JPEG")
        #expect(ImageKind.png.mimeType == "image/png")
    }

    @Test func failedWriteKeepsThePreviousBlob() throws {
        let faulty = try FaultyContainer()
        defer { faulty.destroy() }
        let store = try BlobStore(
            container: faulty.container, cache: MemoryCache(notificationCenter: NotificationCenter()))
        try store.set(Self.jpeg, forKey: "k")
        faulty.failWrites(with: ENOSPC)
        let error = #expect(throws: StoreError.self) { try store.set(Self.png, forKey: "k") }
        faulty.heal()
        #expect(error?.code == .writeFailed)
        #expect(error?.sandboxCode == .noSpace)
        #expect(try store.data(forKey: "k") == Self.jpeg, "cache and disk keep the previous blob")
        store.cache.removeAllObjects()
        #expect(try store.data(forKey: "k") == Self.jpeg)
    }

    @Test func seedsLayoutWithoutAFolder() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blobs")
        defer { try? container.destroy() }
        let store = try BlobStore(
            container: container, folder: nil, cache: MemoryCache(notificationCenter: NotificationCenter()))
        try store.set(Self.png, forKey: "ABC-123")
        #expect(
            FileManager.default.fileExists(atPath: container.documentsDirectory.appendingPathComponent("ABC-123").path))
        #expect(try store.allKeys() == ["ABC-123"], "the journal beside the blobs is not a key")
        let error = #expect(throws: StoreError.self) { try store.set(Self.png, forKey: ".journal") }
        #expect(error?.code == .invalidKey)
    }
}
