import Foundation
import Testing

@testable import AppSandbox

@Suite("Purging tmp and Caches")
struct PurgeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Writes a file and sets its modification time `age` seconds before `now`.
    static func file(_ directory: SandboxDirectory, _ path: String, bytes: Int, age: TimeInterval) throws {
        try directory.write(Data(count: bytes), to: path)
        try setAge(directory, path, age)
    }

    static func setAge(_ directory: SandboxDirectory, _ path: String, _ age: TimeInterval) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: now.addingTimeInterval(-age)],
            ofItemAtPath: directory.url.appendingPathComponent(path).path
        )
    }

    @Test("Launch clears tmp of files older than the threshold, and the folders they leave empty")
    func temporaryByAge() throws {
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        let tmp = container.directory(.temporary)
        try tmp.createDirectory("old-folder")
        try tmp.createDirectory("mixed")
        try Self.file(tmp, "stale.part", bytes: 10, age: 2 * 86_400)
        try Self.file(tmp, "fresh.part", bytes: 20, age: 60)
        try Self.file(tmp, "old-folder/stale", bytes: 30, age: 3 * 86_400)
        try Self.file(tmp, "mixed/stale", bytes: 40, age: 3 * 86_400)
        try Self.file(tmp, "mixed/fresh", bytes: 50, age: 10)
        try Self.file(tmp, ".keepsake-0123456789abcdef.tmp", bytes: 60, age: 5 * 86_400)  // left by a crash
        try Self.setAge(tmp, "old-folder", 3 * 86_400)
        try Self.setAge(tmp, "mixed", 3 * 86_400)

        let report = try container.purgeTemporaryFiles(olderThan: 86_400, now: Self.now)
        #expect(report == PurgeReport(removedFiles: 4, removedBytes: 10 + 30 + 40 + 60, remainingBytes: 20 + 50))
        #expect(try tmp.enumerate().map(\.relativePath) == ["fresh.part", "mixed", "mixed/fresh"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.url.path).sorted() == ["fresh.part", "mixed"])
    }

    @Test("Caches purged by age keep recent files")
    func cachesByAge() throws {
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        let caches = container.directory(.caches)
        try caches.createDirectory("thumbs")
        try Self.file(caches, "thumbs/a", bytes: 100, age: 40 * 86_400)
        try Self.file(caches, "thumbs/b", bytes: 200, age: 1 * 86_400)
        try Self.file(caches, "feed.json", bytes: 300, age: 31 * 86_400)
        let report = try container.purgeCaches(olderThan: 30 * 86_400, now: Self.now)
        #expect(report == PurgeReport(removedFiles: 2, removedBytes: 400, remainingBytes: 200))
        #expect(try caches.enumerate().map(\.relativePath) == ["thumbs", "thumbs/b"])
    }

    @Test("Caches purged by size remove the oldest files first until they fit")
    func cachesBySize() throws {
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        let caches = container.directory(.caches)
        try Self.file(caches, "newest", bytes: 300, age: 10)
        try Self.file(caches, "oldest", bytes: 100, age: 1000)
        try Self.file(caches, "middle", bytes: 200, age: 500)
        let report = try container.purgeCaches(toFitIn: 350)
        #expect(report == PurgeReport(removedFiles: 2, removedBytes: 300, remainingBytes: 300))
        #expect(try caches.contentsOfDirectory() == ["newest"])
        let nothing = try container.purgeCaches(toFitIn: 300)
        #expect(nothing.removedFiles == 0)
    }

    @Test("Purging never touches Documents or Library outside Caches")
    func purgeStaysInItsDirectory() throws {
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        try Self.file(container.directory(.documents), "precious", bytes: 5, age: 400 * 86_400)
        try Self.file(container.directory(.preferences), "prefs.plist", bytes: 5, age: 400 * 86_400)
        try container.purgeTemporaryFiles(olderThan: 0, now: Self.now.addingTimeInterval(1))
        try container.purgeCaches(toFitIn: 0)
        #expect(container.directory(.documents).fileExists("precious"))
        #expect(container.directory(.preferences).fileExists("prefs.plist"))
    }

    @Test("Leftovers of interrupted saves are removed from the whole container once old")
    func interruptedSaveLeftovers() throws {
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        let documents = container.directory(.documents)
        try documents.createDirectory("deep")
        try Self.file(documents, "items.archive", bytes: 10, age: 9 * 86_400)
        try Self.file(documents, ".keepsake-00000000000000aa.tmp", bytes: 20, age: 2 * 86_400)
        try Self.file(documents, "deep/.keepsake-00000000000000bb.old", bytes: 30, age: 2 * 86_400)
        try Self.file(documents, ".keepsake-00000000000000cc.tmp", bytes: 40, age: 10)  // maybe a save in progress
        let support = container.directory(.applicationSupport)
        try Self.file(support, ".keepsake-00000000000000dd.tmp", bytes: 50, age: 3 * 86_400)
        let report = try container.removeLeftoversOfInterruptedSaves(olderThan: 86_400, now: Self.now)
        #expect(report.removedFiles == 3)
        #expect(report.removedBytes == 20 + 30 + 50)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: documents.url.path).sorted()
                == [".keepsake-00000000000000cc.tmp", "deep", "items.archive"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: documents.url.appendingPathComponent("deep").path)
                .isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: support.url.path).isEmpty)
    }
}
