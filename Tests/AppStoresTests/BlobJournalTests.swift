@_spi(Journal) import AppSandbox
import Foundation
import Locking
import TestSupport
import Testing

@testable import AppStores

/// The photo store's journal: what it acknowledges survives a restart whatever broke,
/// and its files end up holding it.
@Suite struct BlobJournalTests {
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46])
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00])

    static func store(_ container: AppContainer, directory: AppContainer.Directory = .documents) throws -> BlobStore {
        try BlobStore(
            container: container, directory: directory, cache: MemoryCache(notificationCenter: NotificationCenter()))
    }

    static func file(_ container: AppContainer, _ path: String) -> Data? {
        FileManager.default.contents(atPath: container.documentsDirectory.appendingPathComponent(path).path)
    }

    @Test(
        "A failure at any step of the write path, then a restart, leaves exactly the acknowledged photos",
        arguments: WritePathFaults.Step.allCases)
    func faultAtEveryStepLeavesTheAcknowledged(step: WritePathFaults.Step) async throws {
        let faults = try WritePathFaults()
        defer { faults.destroy() }
        var acknowledged: [String: Data] = ["a": Self.jpeg]
        do {
            let store = try Self.store(faults.container)
            try await store.set(Self.jpeg, forKey: "a")
            switch step {
            case .journalAppend, .journalFsync, .journalTruncate:
                // A truncate runs only to undo a failed fsync.
                if step == .journalTruncate { faults.arm(.journalFsync) }
                faults.arm(step)
                await #expect(throws: StoreError.self) { try await store.set(Self.png, forKey: "a") }
                // The journal is cut back to its durable records, and appending goes on.
                try await store.set(Self.png, forKey: "b")
                acknowledged["b"] = Self.png
            case .checkpointWrite, .checkpointFsync, .checkpointRename, .directoryFsync:
                try await store.set(Self.png, forKey: "b")
                try await store.delete(forKey: "a")
                acknowledged = ["b": Self.png]
                faults.arm(step)
                await #expect(throws: StoreError.self) { try await store.flush() }
            }
            #expect(faults.fired(step), "the fault at \(step) was never reached")
            for key in ["a", "b"] {
                #expect(try await store.data(forKey: key) == acknowledged[key], "the store holds what a restart finds")
            }
            #expect(try store.allKeys() == acknowledged.keys.sorted())
        }
        do {
            let reopened = try Self.store(faults.container)
            for key in ["a", "b"] {
                #expect(try await reopened.data(forKey: key) == acknowledged[key], "\(key) after the restart")
                #expect(Self.file(faults.container, "images/\(key)") == acknowledged[key], "\(key)'s file")
            }
            // And it goes on: a change after the restart is durable.
            try await reopened.set(Self.jpeg, forKey: "c")
        }
        #expect(try await Self.store(faults.container).data(forKey: "c") == Self.jpeg)
    }

    @Test("A failed record whose cut-back fails too is cut off before the next change, which is then acknowledged")
    func cutBackIsAskedAgain() throws {
        let faults = try WritePathFaults()
        defer { faults.destroy() }
        do {
            let store = try Self.store(faults.container)
            try store.set(Self.jpeg, forKey: "a")
            // The fsync fails, then the truncate and the rewrite that stands in for it.
            for step in [WritePathFaults.Step.journalFsync, .journalTruncate, .checkpointWrite] { faults.arm(step) }
            #expect(throws: StoreError.self) { try store.set(Self.png, forKey: "a") }
            #expect(faults.fired(.checkpointWrite), "the cut-back's rewrite was never tried")
            try store.set(Self.png, forKey: "b")
            #expect(try store.data(forKey: "a") == Self.jpeg)
        }
        let reopened = try Self.store(faults.container)
        #expect(try reopened.data(forKey: "a") == Self.jpeg, "the failed change never comes back")
        #expect(try reopened.data(forKey: "b") == Self.png)
    }

    @Test("A photo's file torn by a crash is written again from the journal at the next start")
    func tornFileIsRewrittenFromTheJournal() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blob-journal")
        defer { try? container.destroy() }
        let photo = Data(repeating: 0xAB, count: 300_000)
        try Self.store(container).set(photo, forKey: "k")
        // The file was written without fsync: a power cut may leave it empty.
        let file = container.documentsDirectory.appendingPathComponent("images/k")
        try Data().write(to: file)
        let reopened = try Self.store(container)
        #expect(try reopened.data(forKey: "k") == photo)
        #expect(FileManager.default.contents(atPath: file.path) == photo, "the file is whole again")
        #expect(try container.directory(.documents).contents(of: "images.journal").count == 40, "and filed")
    }

    @Test(
        "A start on a full disk serves the photos its journal holds, and files them once there is space, without a change"
    )
    func fullDiskAtStartServesFromTheJournal() async throws {
        let faults = try WritePathFaults()
        defer { faults.destroy() }
        let photo = Data(repeating: 0xAB, count: 300_000)
        try await Self.store(faults.container).set(photo, forKey: "k")
        // A power cut left the unsynced file empty; then the disk filled up.
        let file = faults.container.documentsDirectory.appendingPathComponent("images/k")
        try Data().write(to: file)
        faults.arm(.checkpointWrite, failingWith: ENOSPC)
        let reopened = try Self.store(faults.container)
        #expect(faults.fired(.checkpointWrite), "the filing at start never met the full disk")
        #expect(try await reopened.data(forKey: "k") == photo, "served from the journal")
        #expect(reopened.contains(key: "k"))
        #expect(try reopened.allKeys() == ["k"])
        // No change and no flush: the store tries again by itself.
        let deadline = ContinuousClock.now + .seconds(10)
        while FileManager.default.contents(atPath: file.path) != photo {
            try #require(ContinuousClock.now < deadline, "the photo was not filed within 10 s of space coming back")
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await reopened.data(forKey: "k") == photo)
    }

    @Test("A torn journal tail is dropped and a corrupt record kept aside; the records after it are replayed")
    func damagedJournal() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blob-journal")
        defer { try? container.destroy() }
        do {
            let store = try Self.store(container)
            try store.set(Self.jpeg, forKey: "first")
            try store.set(Self.png, forKey: "second")
        }
        // As if neither file had reached the disk before the crash.
        let documents = container.documentsDirectory
        for key in ["first", "second"] {
            try FileManager.default.removeItem(at: documents.appendingPathComponent("images/\(key)"))
        }
        let journal = documents.appendingPathComponent("images.journal")
        var bytes = try Data(contentsOf: journal)
        bytes[40 + 20 + 5] ^= 0xFF  // inside the first record's payload (after the 40-byte header)
        bytes.append(contentsOf: Array("KSJR".utf8) + [0x40, 0, 0, 0])  // a record cut short
        try bytes.write(to: journal)

        let reopened = try Self.store(container)
        #expect(try reopened.data(forKey: "first") == nil, "a damaged record is never applied")
        #expect(try reopened.data(forKey: "second") == Self.png)
        let aside = try FileManager.default.contentsOfDirectory(atPath: documents.path)
            .filter { $0.hasPrefix("images.journal.damaged-") }
        #expect(aside.count == 1, "the damaged bytes are kept beside the journal: \(aside)")
    }

    @Test("A record that passes its checksum but is no blob change is kept aside, and start-up goes on")
    func undecodableRecordIsKeptAside() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blob-journal")
        defer { try? container.destroy() }
        try Self.store(container).set(Self.jpeg, forKey: "good")
        do {
            let documents = container.directory(.documents)
            let (journal, _) = try Journal.open("images.journal", in: documents) { .none }
            try journal.waitUntilDurableBlocking(journal.append(Data([9, 9, 9])))
            let escape = BlobChange(key: "x", data: Self.png).encoded()
            var hostile = escape
            hostile.replaceSubrange(1..<4, with: [2, 0] + Array("..".utf8))  // key ".."
            try journal.waitUntilDurableBlocking(journal.append(hostile))
            journal.close()
        }
        let reopened = try Self.store(container)
        #expect(try reopened.data(forKey: "good") == Self.jpeg)
        #expect(try reopened.allKeys() == ["good"])
        let aside = try FileManager.default.contentsOfDirectory(atPath: container.documentsDirectory.path)
            .filter { $0.contains(".damaged-") && $0.contains("-record-") }
        #expect(aside.count == 2, "both records are kept: \(aside)")
    }

    @Test("Concurrent writers share fsyncs, and the file, the memory and a restart agree on the newest photo")
    func concurrentWritersShareFsyncs() async throws {
        let faulty = try FaultyContainer()
        defer { faulty.destroy() }
        let writers = 8
        let rounds = 25
        let newest: Data
        do {
            let store = try BlobStore(
                container: faulty.container, cache: MemoryCache(notificationCenter: NotificationCenter()))
            let before = faulty.fsyncCount
            let failures = await withTaskGroup(of: Int.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var failures = 0
                        for round in 0..<rounds {
                            let photo = Self.png + Data("\(writer)-\(round)".utf8)
                            let key = round.isMultiple(of: 2) ? "shared" : "w\(writer)"
                            if (try? await store.set(photo, forKey: key)) == nil { failures += 1 }
                        }
                        return failures
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(failures == 0)
            let fsyncs = faulty.fsyncCount - before
            // A loaded machine (the whole suite at once, or ThreadSanitizer) runs the writers
            // nearly one at a time, so few overlap: fewer fsyncs than changes shows that
            // they share (a run here with the suite beside it had 150 for 200).
            #expect(fsyncs < writers * rounds, "\(fsyncs) fsyncs for \(writers * rounds) changes")
            newest = try #require(try await store.data(forKey: "shared"))
            #expect(Self.file(faulty.container, "images/shared") == newest, "the file shows what memory says")
        }
        let reopened = try BlobStore(
            container: faulty.container, cache: MemoryCache(notificationCenter: NotificationCenter()))
        #expect(try await reopened.data(forKey: "shared") == newest, "a restart finds the same newest photo")
        let lastOwnRound = try #require((0..<rounds).last { !$0.isMultiple(of: 2) })
        for writer in 0..<writers {
            #expect(
                try await reopened.data(forKey: "w\(writer)") == Self.png + Data("\(writer)-\(lastOwnRound)".utf8))
        }
    }

    @Test(
        "A change filed by a checkpoint before its own apply ran never overwrites a newer one, on disk or in the cache")
    func aLateApplyNeverOverwritesAFiledChange() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blob-journal")
        defer { try? container.destroy() }
        let files = BlobFiles(
            directory: container.directory(.documents), folder: "images",
            cache: MemoryCache(notificationCenter: NotificationCenter()))
        try container.directory(.documents).createDirectory("images")
        let older = BlobChange(key: "k", data: Self.jpeg)
        let newer = BlobChange(key: "k", data: Self.png)
        files.cache.setObject(Data("stale".utf8), forKey: "k")
        // Both durable in one batch; the checkpoint files them before either apply runs.
        try files.file([
            Journal.Record(ticket: 5, payload: older.encoded()), Journal.Record(ticket: 6, payload: newer.encoded()),
        ])
        files.apply(older, ticket: 5)
        #expect(Self.file(container, "images/k") == Self.png, "the late apply left the filed file alone")
        #expect(try files.data(forKey: "k") == Self.png, "and the cache shows the filed photo")
        files.apply(newer, ticket: 6)
        #expect(Self.file(container, "images/k") == Self.png)
        #expect(files.pending.withLock { $0.entries.isEmpty }, "nothing filed stays pending")
    }

    @Test("A folder at the key's name is refused before anything is journaled")
    func aFolderAtTheKeyIsRefused() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blob-journal")
        defer { try? container.destroy() }
        let store = try Self.store(container)
        try container.directory(.documents).createDirectory("images/k")
        let error = #expect(throws: StoreError.self) { try store.set(Self.jpeg, forKey: "k") }
        #expect(error?.code == .writeFailed && error?.sandboxCode == .notRegularFile)
        #expect(try container.directory(.documents).contents(of: "images.journal").count == 40)
        try store.flush()
    }

    @Test("A store let go with a checkpoint queued closes its journal, and a new one opens at once")
    func releaseWithACheckpointQueued() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blob-journal")
        defer { try? container.destroy() }
        let big = Data(repeating: 7, count: 9 << 20)
        weak var released: BlobStore?
        do {
            let store = try Self.store(container)
            released = store
            try store.set(big, forKey: "one")
            try store.set(big + Data([1]), forKey: "two")  // past 16 MiB: a checkpoint is queued
        }
        #expect(released == nil, "nothing but its caller holds the store")
        let reopened = try BlobStore(
            container: container, cache: MemoryCache(notificationCenter: NotificationCenter()), lockTimeout: .zero)
        #expect(try reopened.data(forKey: "two")?.count == big.count + 1)
        #expect(try container.directory(.documents).contents(of: "images.journal").count == 40)
    }

    @Test("A folder removed behind the store's back is made again by the checkpoint, with the photos")
    func missingFolderIsMadeAgain() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blob-journal")
        defer { try? container.destroy() }
        let store = try Self.store(container)
        try store.set(Self.jpeg, forKey: "k")
        try FileManager.default.removeItem(at: container.documentsDirectory.appendingPathComponent("images"))
        try store.flush()
        #expect(Self.file(container, "images/k") == Self.jpeg)
    }

    @Test("Purging the caches spares a journal in use and its lock")
    func purgeSparesAHeldJournal() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.blob-journal")
        defer { try? container.destroy() }
        let store = try Self.store(container, directory: .caches)
        try store.set(Self.jpeg, forKey: "copy")
        let caches = container.directory(.caches)
        try container.purgeCaches(toFitIn: 0)
        #expect(caches.fileExists("images.journal"), "the open journal stays")
        #expect(!caches.fileExists("images/copy"), "the cached photo itself is purgeable")
        let second = #expect(throws: StoreError.self) {
            try BlobStore(container: container, directory: .caches, lockTimeout: .zero)
        }
        #expect(second?.sandboxCode == .timedOut, "the lock still keeps a second store out")
        try store.set(Self.png, forKey: "after")
        #expect(try store.data(forKey: "after") == Self.png)
    }

    @Test(
        "A photo whose file could not be written after its journal record is still acknowledged, and its URL names the written file"
    )
    func urlWritesALaggingFile() throws {
        let faults = try WritePathFaults()
        defer { faults.destroy() }
        let store = try Self.store(faults.container)
        faults.arm(.checkpointWrite)  // the first write of a temporary file: the photo's own
        try store.set(Self.jpeg, forKey: "k")
        #expect(faults.fired(.checkpointWrite))
        #expect(Self.file(faults.container, "images/k") == nil, "the file write failed")
        #expect(try store.data(forKey: "k") == Self.jpeg, "the durable photo is served from memory")
        #expect(try Data(contentsOf: store.url(forKey: "k")) == Self.jpeg)
    }
}
