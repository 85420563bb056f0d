import AppLifecycle
@_spi(Testing) import AppRuntime
import AppSandbox
import Foundation
import KeyedArchive
import Locking
import Testing

@testable import AppStores

#if canImport(Glibc)
import Glibc
#endif

@Suite @MainActor struct ItemStoreTests {
    @Test func itemsSurviveARestart() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.itemstore")
        defer { try? container.destroy() }
        do {
            let store = try ItemStore<Item>(container: container)
            #expect(store.allItems.isEmpty, "no archive yet: an empty store")
            store.add(Item(name: "Bike", valueInDollars: 300, serialNumber: "B-1"))
            store.add(Item(name: "Lamp", valueInDollars: 20))
            try store.save()
        }
        let reopened = try ItemStore<Item>(container: container)
        #expect(reopened.allItems.map(\.name) == ["Bike", "Lamp"])
        #expect(reopened.allItems.first?.serialNumber == "B-1")
        #expect(!reopened.isDirty)
        #expect(
            FileManager.default.fileExists(
                atPath: container.documentsDirectory.appendingPathComponent("items.archive").path))
    }

    @Test("reloadIfSaved reads another store's save and refuses while changes here are unsaved; reload drops them")
    func reloadIfSavedNeverDropsAChange() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.itemstore")
        defer { try? container.destroy() }
        // Two stores on one archive, as two processes sharing a backend are: without
        // a journal, which only one store may hold.
        let writer = try ItemStore(backend: ArchiveFileBackend<BookItem>(container: container))
        let reader = try ItemStore(backend: ArchiveFileBackend<BookItem>(container: container))
        writer.add(BookItem(name: "Bike"))
        try writer.save()
        #expect(try reader.reloadIfSaved())
        #expect(reader.allItems.map(\.name) == ["Bike"] && !reader.isDirty)
        reader.allItems[0].name = "Red bike"
        writer.add(BookItem(name: "Lamp"))
        try writer.save()
        #expect(try !reader.reloadIfSaved(), "a reload would have dropped the rename")
        #expect(reader.allItems.map(\.name) == ["Red bike"])
        // The app's choice: drop the rename for what is saved.
        try reader.reload()
        #expect(reader.allItems.map(\.name) == ["Bike", "Lamp"] && !reader.isDirty)
    }

    @Test("The async load of a backend, and a store made with it, hold what the sync ones do")
    func asyncLoad() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.itemstore")
        defer { try? container.destroy() }
        let backend = ArchiveFileBackend<BookItem>(container: container)
        let writer = try await ItemStore(backend: backend)
        #expect(writer.allItems.isEmpty)
        writer.add(BookItem(name: "Bike"))
        writer.add(BookItem(name: "Lamp"))
        try await writer.saveInBackground()
        #expect(try await backend.loadItems().map(\.name) == ["Bike", "Lamp"])
        let reader = try await ItemStore(backend: backend)
        #expect(reader.allItems.map(\.name) == ["Bike", "Lamp"] && !reader.isDirty)
        try container.directory(.documents).write(Data("not an archive".utf8), to: "items.archive")
        let error = await #expect(throws: StoreError.self) { try await backend.loadItems() }
        #expect(error?.code == .corruptArchive)
    }

    @Test("A class item changed in place, not through the store, makes it dirty and is saved")
    func inPlaceEditOfAClassItemIsSaved() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.itemstore")
        defer { try? container.destroy() }
        do {
            let store = try ItemStore<BookItem>(container: container)
            store.add(BookItem(name: "Bike"))
            try store.save()
            #expect(!store.isDirty)
            store.allItems[0].name = "Red bike"
            #expect(store.isDirty, "an in-place edit of a class item went unnoticed")
            try store.saveIfDirty()
            #expect(!store.isDirty)
        }
        let reopened = try ItemStore<BookItem>(container: container)
        #expect(reopened.allItems.map(\.name) == ["Red bike"])
        #expect(!reopened.isDirty, "a store just loaded has nothing to save")
    }

    @Test func archiveIsWhatTheUnarchiverReads() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.itemstore")
        defer { try? container.destroy() }
        let store = try ItemStore<Item>(container: container)
        store.add(Item(name: "Chair", valueInDollars: 45, itemKey: "k1"))
        #expect(store.saveChanges())
        let data = try container.directory(.documents).contents(of: "items.archive")
        let items = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Item.self, from: data)
        #expect(items == [Item(name: "Chair", valueInDollars: 45, itemKey: "k1")])
    }

    @Test func failedSaveThrowsKeepsTheOldArchiveAndStaysDirty() throws {
        let faulty = try FaultyContainer()
        defer { faulty.destroy() }
        do {
            let store = try ItemStore<Item>(container: faulty.container)
            store.add(Item(name: "Saved"))
            try store.save()
            let before = try faulty.container.directory(.documents).contents(of: "items.archive")

            store.add(Item(name: "Not yet saved"))
            faulty.failWrites(with: ENOSPC)
            let error = #expect(throws: StoreError.self) { try store.save() }
            #expect(error?.code == .writeFailed)
            #expect(error?.sandboxCode == .noSpace)
            #expect(!store.saveChanges(), "the Bool convenience reports the failure too")
            faulty.heal()

            #expect(store.isDirty, "a failed save must leave the changes marked unsaved")
            let after = try faulty.container.directory(.documents).contents(of: "items.archive")
            #expect(after == before, "the previous archive must be intact")
            let names = try FileManager.default.contentsOfDirectory(atPath: faulty.container.documentsDirectory.path)
            #expect(
                names.sorted() == [".keepsake-items.archive.journal.lock", "items.archive", "items.archive.journal"],
                "no temporary file may be left behind")

            try store.save()
            #expect(!store.isDirty)
        }
        #expect(try ItemStore<Item>(container: faulty.container).count == 2)
    }

    @Test("Every kind of change, flushed and never saved, is replayed from the journal on the archive")
    func flushedChangesAreReplayed() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.itemstore")
        defer { try? container.destroy() }
        let expected: [String]
        do {
            let store = try ItemStore<Item>(container: container)
            for name in ["a", "b", "c", "d", "e"] { store.add(Item(name: name)) }
            try store.save()
            store.insert(Item(name: "first"), at: 0)
            #expect(store.remove(at: 2)?.name == "b")
            #expect(store.move(from: 0, to: 3))
            #expect(store.update(at: 1) { $0.name = "A" })
            #expect(store.removeAll { $0.name == "d" } == 1)
            #expect(store.updateAll(where: { $0.name == "e" }) { $0.valueInDollars = 5 } == 1)
            store.allItems.append(Item(name: "appended"))
            try await store.flush()
            #expect(!store.isDirty, "flushed changes are durable")
            expected = store.allItems.map { "\($0.name)\($0.valueInDollars)" }
        }
        let reopened = try ItemStore<Item>(container: container)
        #expect(reopened.allItems.map { "\($0.name)\($0.valueInDollars)" } == expected)
        let archive = try KeyedUnarchiver.unarchivedArrayOfObjects(
            ofClass: Item.self, from: try container.directory(.documents).contents(of: "items.archive"))
        #expect(archive?.map(\.name) == ["a", "b", "c", "d", "e"], "only a save writes the archive")
    }

    @Test("A failed journal write undoes the changes it held, here and on disk, and the store goes on")
    func failedFlushRollsBack() async throws {
        let faulty = try FaultyContainer()
        defer { faulty.destroy() }
        do {
            let store = try ItemStore<Item>(container: faulty.container)
            store.add(Item(name: "kept"))
            try await store.flush()
            faulty.failWrites(with: EIO)
            store.add(Item(name: "lost"))
            let error = await #expect(throws: StoreError.self) { try await store.flush() }
            #expect(error?.code == .writeFailed && error?.sandboxCode == .ioError)
            #expect(store.allItems.map(\.name) == ["kept"], "the store must hold what a restart finds")
            #expect(!store.isDirty)
            faulty.heal()
            store.add(Item(name: "after"))
            try await store.flush()
        }
        #expect(try ItemStore<Item>(container: faulty.container).allItems.map(\.name) == ["kept", "after"])
    }

    @Test(
        "A failure at any step of the write path, then a restart, leaves exactly the acknowledged items",
        arguments: WritePathFaults.Step.allCases)
    func faultAtEveryStepLeavesTheAcknowledged(step: WritePathFaults.Step) async throws {
        let faults = try WritePathFaults()
        defer { faults.destroy() }
        var acknowledged = ["a"]
        do {
            let store = try ItemStore<Item>(container: faults.container)
            store.add(Item(name: "a"))
            try await store.flush()
            switch step {
            case .journalAppend, .journalFsync, .journalTruncate:
                // Armed before the change: its record is written as soon as it is made.
                // A truncate runs only to undo a failed fsync.
                if step == .journalTruncate { faults.arm(.journalFsync) }
                faults.arm(step)
                store.add(Item(name: "b"))
                await #expect(throws: StoreError.self) { try await store.flush() }
            case .checkpointWrite, .checkpointFsync, .checkpointRename, .directoryFsync:
                store.add(Item(name: "b"))
                try await store.flush()
                acknowledged.append("b")
                faults.arm(step)
                #expect(throws: StoreError.self) { try store.save() }
            }
            #expect(faults.fired(step), "the fault at \(step) was never reached")
            #expect(store.allItems.map(\.name) == acknowledged, "the store holds what a restart finds")
        }
        #expect(try ItemStore<Item>(container: faults.container).allItems.map(\.name) == acknowledged)
        // And it goes on: a change after the restart is durable.
        do {
            let store = try ItemStore<Item>(container: faults.container)
            store.add(Item(name: "c"))
            try await store.flush()
        }
        #expect(try ItemStore<Item>(container: faults.container).allItems.map(\.name) == acknowledged + ["c"])
    }

    @Test("The journal is folded into the archive once it outgrows it, without a save")
    func largeJournalIsCheckpointed() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.itemstore")
        defer { try? container.destroy() }
        let store = try ItemStore<Item>(container: container)
        let documents = container.directory(.documents)
        // 1.2 MiB of records: each item's name is 4 KiB.
        for index in 0..<300 {
            store.add(Item(name: String(repeating: "x", count: 4096) + "\(index)"))
            try await store.flush()
            if documents.fileExists("items.archive") { break }
        }
        #expect(documents.fileExists("items.archive"), "the archive was never written")
        try store.save()
        #expect(try documents.contents(of: "items.archive.journal").count == 40, "a header alone")
    }

    @Test func corruptArchiveIsReportedAndKept() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.itemstore")
        defer { try? container.destroy() }
        let garbage = Data("bplist00 this is not an archive".utf8)
        try container.directory(.documents).write(garbage, to: "items.archive")
        let error = #expect(throws: StoreError.self) { try ItemStore<Item>(container: container) }
        #expect(error?.code == .corruptArchive)
        #expect(error?.underlyingError is KeyedArchiveError)
        #expect(try container.directory(.documents).contents(of: "items.archive") == garbage)
    }

    @Test func archiveOfSomethingElseIsCorrupt() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.itemstore")
        defer { try? container.destroy() }
        try container.directory(.documents).write(
            try KeyedArchiver.archivedData(withRootObject: ["just", "strings"]), to: "items.archive")
        let error = #expect(throws: StoreError.self) { try ItemStore<Item>(container: container) }
        #expect(error?.code == .corruptArchive)
    }

    @Test func changesMarkTheStoreDirty() throws {
        let backend = try InMemoryBackend<Item>(items: [Item(name: "a"), Item(name: "b"), Item(name: "c")])
        let store = try ItemStore(backend: backend)
        #expect(!store.isDirty)
        #expect(store.move(from: 0, to: 2))
        #expect(store.allItems.map(\.name) == ["b", "c", "a"])
        #expect(store.isDirty)
        try store.save()
        #expect(!store.isDirty)
        #expect(try backend.loadItems().map(\.name) == ["b", "c", "a"])

        #expect(store.remove(at: 7) == nil)
        #expect(!store.move(from: 0, to: 9))
        #expect(!store.update(at: 3) { $0.name = "x" })
        #expect(store.removeAll { $0.name == "zzz" } == 0)
        #expect(!store.isDirty, "operations that change nothing must not dirty the store")

        #expect(store.update(at: 1) { $0.valueInDollars = 99 })
        #expect(store.item(at: 1)?.valueInDollars == 99)
        #expect(store.isDirty)
        try store.save()
        #expect(store.remove(at: 0)?.name == "b")
        #expect(store.removeAll { $0.name == "a" } == 1)
        #expect(store.updateAll(where: { $0.name == "c" }) { $0.serialNumber = "S" } == 1)
        #expect(
            store.allItems == [
                Item(name: "c", valueInDollars: 99, serialNumber: "S", itemKey: store.allItems[0].itemKey)
            ])
        #expect(store.isDirty)
    }

    @Test func changeDuringABackgroundSaveStaysUnsaved() async throws {
        let backend = try GatedBackend<Item>()
        let store = try await ItemStore(backend: backend)
        store.add(Item(name: "first"))
        let saving = Task { try await store.saveInBackground() }
        // The main actor stays free while the write waits: the store can still change.
        try await backend.untilWriting()
        store.add(Item(name: "arrived while saving"))
        backend.finishWriting()
        try await saving.value
        #expect(try await backend.stored.loadItems().map(\.name) == ["first"])
        #expect(store.isDirty, "an item added after the snapshot was taken was not saved")
    }

    @Test("A background save that finishes after a later save does not count: the disk holds the later one")
    func anEarlierSaveFinishingLateDoesNotHideAnEdit() async throws {
        let backend = try GatedBackend<BookItem>(items: [BookItem(name: "Bike")])
        let store = try await ItemStore(backend: backend)
        // Edited through a reference a controller holds, as the books' detail view does.
        let item = store.allItems[0]
        item.name = "Red bike"
        let first = Task { try await store.saveInBackground() }
        try await backend.untilWriting()
        item.name = "Bike"
        backend.finishWriting()
        // Waits behind the first write; the first one's result reaches the main actor
        // only after this save has recorded its own.
        try store.save()
        try await first.value
        #expect(try await backend.stored.loadItems().map(\.name) == ["Bike"])
        #expect(!store.isDirty)
        item.name = "Red bike"
        #expect(store.isDirty, "an edit back to what the older save wrote is not on disk")
    }

    @Test func attachedStoreSavesOnBackgroundAndTermination() throws {
        let backend = try InMemoryBackend<Item>()
        let (store, app) = try launchedAppWithOneItem(in: backend)
        app.send(.hidden)
        #expect(try backend.loadItems().map(\.name) == ["one"])
        #expect(!store.isDirty)
        app.send(.hidden)
        app.send(.visible)
        app.send(.hidden)
        #expect(backend.saveCount == 1, "a clean store is not saved again")
        app.send(.visible)
        store.add(Item(name: "two"))
        app.send(.terminate)
        #expect(try backend.loadItems().map(\.name) == ["one", "two"])
    }

    @Test func failedAutomaticSaveIsRecorded() throws {
        let backend = try InMemoryBackend<Item>()
        let (store, app) = try launchedAppWithOneItem(in: backend)
        backend.failNextSaves(1)
        app.send(.hidden)
        #expect(store.lastAutosaveError?.code == .writeFailed)
        #expect(store.isDirty)
        app.send(.terminate)
        #expect(store.lastAutosaveError == nil)
        #expect(try backend.loadItems().count == 1)
    }

    /// A store of `backend` attached to a launched app, holding the unsaved item "one".
    private func launchedAppWithOneItem(in backend: InMemoryBackend<Item>) throws -> (ItemStore<Item>, Application) {
        let store = try ItemStore(backend: backend)
        let app = Application(scheduler: ManualScheduler(), notificationCenter: NotificationCenter())
        store.attach(to: app)
        app.launch()
        store.add(Item(name: "one"))
        return (store, app)
    }

    @Test func concurrentChangesAndBackgroundSavesAreAllKept() async throws {
        let backend = try InMemoryBackend<Item>()
        let store = try await ItemStore(backend: backend)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<250 {
                        await store.add(Item(name: "\(worker)-\(index)"))
                        if index.isMultiple(of: 50) { try await store.saveInBackground() }
                    }
                }
            }
            // A save that failed in a worker fails the test: the group would drop it.
            try await group.waitForAll()
        }
        #expect(store.count == 2_000)
        #expect(store.isDirty, "items were added after the last save")
        try await store.saveInBackground()
        #expect(!store.isDirty)
        #expect(Set(try await backend.loadItems().map(\.name)).count == 2_000)
    }
}

/// An in-memory backend whose first write waits until the test lets it finish.
final class GatedBackend<Model: KeyedArchivable>: ItemStoreBackend {
    let stored: InMemoryBackend<Model>
    private let writing = DispatchSemaphore(value: 0)
    private let mayFinish = DispatchSemaphore(value: 0)
    private let gated = Locked(true)

    init(items: [Model] = []) throws {
        stored = try InMemoryBackend(items: items)
    }

    func loadItems() throws(StoreError) -> [Model] { try stored.loadItems() }
    func snapshot(of items: [Model]) throws(StoreError) -> Data { try stored.snapshot(of: items) }
    func write(_ snapshot: Data) throws(StoreError) {
        if gated.withLock({ gate in
            defer { gate = false }
            return gate
        }) {
            writing.signal()
            mayFinish.wait()
        }
        try stored.write(snapshot)
    }

    /// Returns once the gated write has started, leaving the main actor free meanwhile.
    func untilWriting() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while writing.wait(timeout: .now()) == .timedOut {
            try #require(ContinuousClock.now < deadline, "the write never started")
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    func finishWriting() { mayFinish.signal() }
}
