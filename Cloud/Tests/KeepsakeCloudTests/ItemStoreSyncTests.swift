@_spi(Journal) import AppSandbox
import AppStores
import Foundation
import KeyedArchive
import PostgresNIO
import Testing

@testable import KeepsakeCloud

/// The sync engine on real item stores, each in a container of its own, sharing one
/// store of the test database.
@MainActor
@Suite(.enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage), .serialized)
struct ItemStoreSyncTests {
    let storeName = "test.sync.\(UUID().uuidString)"

    /// An item store with its engine running, in a container of its own.
    @MainActor final class Instance {
        let container: AppContainer
        let store: ItemStore<Gadget>
        let sync: ItemStoreSync<Gadget>
        private var running: Task<Void, Never>?

        init(
            _ container: AppContainer, store: ItemStore<Gadget>, storeName: String, replica: String,
            database: CloudDatabase? = nil, timeout: Duration = .seconds(10)
        ) throws {
            self.container = container
            self.store = store
            let backend = PostgresItemStoreBackend<Gadget>(
                database: try database ?? #require(TestDatabase.shared), store: storeName,
                mergePolicy: .fieldLastWriterWins, replica: replica, timeout: timeout)
            sync = try ItemStoreSync(
                store: store, backend: backend, directory: container.directory(.applicationSupport))
            let sync = sync
            running = Task { await sync.run() }
        }

        func stop() async {
            running?.cancel()
            await running?.value
            running = nil
        }

        /// The agreement's journal, in bytes.
        var agreementJournalSize: Int {
            let url = container.directory(.applicationSupport).url.appendingPathComponent(
                "shared-items.agreement.journal")
            return (try? Data(contentsOf: url).count) ?? 0
        }
    }

    func instance(
        _ replica: String, in container: AppContainer? = nil, items: [Gadget] = []
    ) async throws -> Instance {
        let container = try container ?? AppContainer.temporary(identifier: "org.keepsake.sync")
        let store = try ItemStore<Gadget>(container: container)
        if !items.isEmpty {
            store.replaceAll(with: items)
            try await store.flush()
        }
        return try Instance(container, store: store, storeName: storeName, replica: replica)
    }

    /// What the table holds now, read by a backend of its own.
    func tableItems() async throws -> [Gadget] {
        try await PostgresItemStoreBackend<Gadget>(database: try #require(TestDatabase.shared), store: storeName).load()
    }

    func eventually(_ what: Comment, within limit: Duration = .seconds(10), _ holds: () async throws -> Bool)
        async throws
    {
        let deadline = ContinuousClock.now + limit
        while try await !holds() {
            try #require(ContinuousClock.now < deadline, what)
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("A change is pushed only once it is durable: a failed save keeps it from the database until a save succeeds")
    func onlyDurableChangesArePushed() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.sync")
        defer { try? container.destroy() }
        let memory = try InMemoryBackend<Gadget>()
        let store = try await ItemStore(backend: memory)
        let a = try Instance(container, store: store, storeName: storeName, replica: "A")
        store.add(Gadget("first", value: 1))
        try await store.saveInBackground()
        try await eventually("the saved item reaches the table") { try await tableItems().map(\.name) == ["first"] }
        // Every change told is pushed: no round is left to meet the next item. (One
        // that found it, its place not agreed yet, would save the store itself.)
        try await eventually("the engine is idle") { a.sync.status.pendingItems == 0 }
        memory.failNextSaves()
        store.add(Gadget("unsaved", value: 2))
        await #expect(throws: StoreError.self) { try await store.saveInBackground() }
        try await Task.sleep(for: .seconds(1.5))
        #expect(try await tableItems().map(\.name) == ["first"], "a change whose write failed is not pushed")
        try await store.saveInBackground()
        try await eventually("saved at last, it is pushed") {
            try await tableItems().map(\.name) == ["first", "unsaved"]
        }
        await a.stop()
    }

    @Test("A create among 2,000 items writes one row and an agreement record the size of one item")
    func aPushCostsTheChange() async throws {
        let items = (0..<2_000).map { Gadget("item \($0)", value: $0) }
        let a = try await instance("A", items: items)
        defer { try? a.container.destroy() }
        try await eventually("every item is pushed", within: .seconds(30)) { try await tableItems().count == 2_000 }
        try await Task.sleep(for: .milliseconds(300))
        let (journalBefore, table) = (a.agreementJournalSize, try await tableItems())
        a.store.add(Gadget("new", value: 7))
        try await a.store.flush()
        try await eventually("the create is pushed") { try await tableItems().count == 2_001 }
        try await eventually("the agreement after the save is kept") { a.sync.status.pendingItems == 0 }
        let grown = a.agreementJournalSize - journalBefore
        #expect(grown > 0 && grown < 4_096, "the agreement grew by \(grown) bytes: the change, not the store")
        let after = try await tableItems()
        #expect(Array(after.prefix(2_000)) == table, "no other row changed")
        #expect(after.last?.name == "new")
        await a.stop()
    }

    @Test("Creates, edits, moves and deletes made elsewhere arrive item by item, never as a replacement of all")
    func changesArriveItemByItem() async throws {
        let seed = (0..<5).map { Gadget("g\($0)", value: $0, id: "g\($0)") }
        let a = try await instance("A", items: seed)
        defer { try? a.container.destroy() }
        try await eventually("the seed is pushed") { try await tableItems().count == 5 }
        let b = try await instance("B")
        defer { try? b.container.destroy() }
        try await eventually("B takes in the seed") { b.store.allItems.map(\.id) == seed.map(\.id) }
        try await Task.sleep(for: .milliseconds(300))
        let documents = b.container.directory(.documents)
        let archive = try? documents.contents(of: "items.archive")
        a.store.add(Gadget("new", value: 9, id: "new"))
        a.store.update(at: 1) { $0.name = "edited" }
        a.store.move(from: 4, to: 0)
        a.store.remove(at: 3)
        try await a.store.flush()
        let expected = a.store.allItems
        try await eventually("B shows A's changes, in A's order") { b.store.allItems == expected }
        let records = try #require(
            try Journal.records(
                "items.archive.journal", in: documents, following: archive.map(CheckpointDigest.init(of:)) ?? .none))
        let kinds = Set(records.compactMap(\.first))
        #expect(!records.isEmpty && kinds.isSubset(of: [1, 2, 3, 4]), "insert, remove, replace, move only: \(kinds)")
        await a.stop()
        await b.stop()
    }

    @Test(
        "A replica whose model lacks a field keeps it through its edits, and pushes nothing for rows that only add it"
    )
    func anOlderModelKeepsFieldsItDoesNotKnow() async throws {
        var bike = Gadget("bike", value: 300, id: "bike")
        bike.serial = "B1K3"
        let a = try await instance("A", items: [bike])
        defer { try? a.container.destroy() }
        try await eventually("the bike is pushed") { try await tableItems() == [bike] }
        let container = try AppContainer.temporary(identifier: "org.keepsake.sync")
        defer { try? container.destroy() }
        do {
            let store = try ItemStore<OldGadget>(container: container)
            let backend = PostgresItemStoreBackend<OldGadget>(
                database: try #require(TestDatabase.shared), store: storeName, mergePolicy: .fieldLastWriterWins,
                replica: "old")
            let old = try ItemStoreSync(
                store: store, backend: backend, directory: container.directory(.applicationSupport))
            let running = Task { await old.run() }
            try await eventually("the old replica takes the bike") { store.allItems.map(\.value) == [300] }
            try await Task.sleep(for: .seconds(1))
            #expect(old.status.lastPush == nil, "a row that only adds a field the model lacks is nothing to push")

            store.update(at: 0) { $0.value = 350 }
            try await store.flush()
            try await eventually("the old replica's edit is pushed") { try await tableItems().first?.value == 350 }
            #expect(try await tableItems().first?.serial == "B1K3", "the field survives the old replica's edit")
            try await eventually("A has the edit") { a.store.allItems.first?.value == 350 }
            a.store.update(at: 0) { $0.serial = "S3R1" }
            try await a.store.flush()
            try await eventually("A's new serial is pushed") { try await tableItems().first?.serial == "S3R1" }
            store.update(at: 0) { $0.name = "old bike" }
            try await store.flush()
            try await eventually("the old replica's second edit is pushed") {
                try await tableItems().first?.name == "old bike"
            }
            bike.name = "old bike"
            (bike.value, bike.serial) = (350, "S3R1")
            #expect(try await tableItems() == [bike])
            try await eventually("A shows both replicas' fields") { a.store.allItems == [bike] }
            let lastPush = old.status.lastPush
            try await Task.sleep(for: .seconds(1.5))
            #expect(old.status.lastPush == lastPush, "once settled, the old replica pushes nothing more")
            // A last serial number, which the old replica takes as agreed without holding it.
            a.store.update(at: 0) { $0.serial = "S3R2" }
            try await a.store.flush()
            bike.serial = "S3R2"
            try await eventually("A's last serial is pushed") { try await tableItems() == [bike] }
            try await Task.sleep(for: .seconds(1))
            running.cancel()
            await running.value
        }
        await a.stop()

        // The old replica is upgraded: its items, kept without serial numbers, are read
        // by the current model. They are no change of its own: nothing is pushed, and
        // no serial number is cleared.
        let upgraded = try ItemStore<Gadget>(container: container)
        let backendAfter = PostgresItemStoreBackend<Gadget>(
            database: try #require(TestDatabase.shared), store: storeName, mergePolicy: .fieldLastWriterWins,
            replica: "upgraded")
        let after = try ItemStoreSync(
            store: upgraded, backend: backendAfter, directory: container.directory(.applicationSupport))
        let runningAfter = Task { await after.run() }
        try await eventually("the upgraded replica takes the serial number") {
            upgraded.allItems.first?.serial == "S3R2"
        }
        #expect(after.status.lastPush == nil, "the upgrade pushed nothing")
        #expect(try await tableItems() == [bike])
        runningAfter.cancel()
        await runningAfter.value
    }

    @Test("A row taken in beside an item made here and not yet pushed is not written again: only that item is")
    func aRowTakenInIsNotWrittenBack() async throws {
        let a = try await instance("A", items: [Gadget("g0", value: 0, id: "g0")])
        defer { try? a.container.destroy() }
        try await eventually("the seed is pushed") { try await tableItems().count == 1 }
        let b = try await instance("B")
        defer { try? b.container.destroy() }
        try await eventually("B takes in the seed") { b.store.allItems.map(\.id) == ["g0"] }
        try await eventually("B is idle") { b.sync.status.pendingItems == 0 }
        try await Task.sleep(for: .milliseconds(300))
        // B makes an item at its end in the round that takes A's, after its push: A's
        // row then goes after it, and both are B's changes to push.
        var made = false
        b.sync.eachRound = { [store = b.store] in
            guard !made else { return }
            made = true
            store.add(Gadget("mine", value: 1, id: "mine"))
            try await store.flush()
        }
        a.store.add(Gadget("theirs", value: 2, id: "theirs"))
        try await a.store.flush()
        try await eventually("B's item reaches the table") { try await tableItems().count == 3 }
        try await eventually("B is idle again") { b.sync.status.pendingItems == 0 }
        let raw = DatabaseClient(try #require(TestDatabase.shared), timeout: .seconds(10))
        let writers = try await raw.withConnection { connection in
            try await connection.query(
                """
                SELECT record_id, stamp_replica, coalesce(field_stamps, '') FROM keepsake_items
                WHERE store = \(storeName) ORDER BY record_id
                """, logger: PoisonRow.logger
            ).collect().map { try $0.decode((String, String, String).self) }
        }
        #expect(
            writers.map { "\($0.0) \($0.1) \($0.2)" } == ["g0 A ", "mine B ", "theirs A "],
            "each row as its maker wrote it, none moved by B")
        await a.stop()
        await b.stop()
    }

    @Test("Changes made while the engine is stopped are pushed on its next start, from what was agreed")
    func aRestartPushesWhatWasMadeMeanwhile() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.sync")
        defer { try? container.destroy() }
        do {
            let a = try await instance("A", in: container, items: [Gadget("bike", value: 300, id: "bike")])
            try await eventually("the bike is pushed") { try await tableItems().map(\.name) == ["bike"] }
            try await eventually("and agreed") { a.sync.status.pendingItems == 0 }
            await a.stop()
            a.store.update(at: 0) { $0.value = 500 }
            a.store.add(Gadget("lamp", value: 20, id: "lamp"))
            try await a.store.flush()
        }
        let again = try await instance("A", in: container)
        #expect(again.sync.status.pendingItems == 2, "the journal after the cursor names the two changes")
        try await eventually("the changes made while stopped are pushed") {
            try await tableItems().map(\.value) == [500, 20]
        }
        await again.stop()
    }

    @Test("A change whose push failed is pushed after a restart: the cursor moves only past what the database took")
    func theCursorMovesOnlyPastWhatWasPushed() async throws {
        let proxied = try ProxiedDatabase()
        defer { proxied.close() }
        proxied.proxy.stall(false)
        let container = try AppContainer.temporary(identifier: "org.keepsake.sync")
        defer { try? container.destroy() }
        do {
            let a = try Instance(
                container, store: try ItemStore<Gadget>(container: container), storeName: storeName, replica: "A",
                database: proxied.database, timeout: .seconds(2))
            a.store.add(Gadget("bike", value: 300, id: "bike"))
            try await a.store.flush()
            try await eventually("the bike is pushed") { try await tableItems().map(\.name) == ["bike"] }
            try await eventually("and agreed") { a.sync.status.pendingItems == 0 }
            proxied.proxy.cutOff()
            a.store.add(Gadget("lamp", value: 20, id: "lamp"))
            try await a.store.flush()
            try await eventually("the lamp's push fails") { a.sync.status.lastError != nil }
            await a.stop()
        }
        let again = try await instance("A", in: container)
        #expect(again.sync.status.pendingItems == 1, "the lamp is after the cursor")
        try await eventually("the lamp is pushed") { try await tableItems().map(\.name) == ["bike", "lamp"] }
        await again.stop()
    }

    @Test("A container shared with another store name pushes every item there: what was agreed is the other store's")
    func anAgreementWithAnotherStoreIsNotTaken() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.sync")
        defer { try? container.destroy() }
        let other = "\(storeName).before"
        do {
            let store = try ItemStore<Gadget>(container: container)
            store.add(Gadget("bike", value: 300, id: "bike"))
            try await store.flush()
            let a = try Instance(container, store: store, storeName: other, replica: "A")
            try await eventually("pushed to the first store") { a.sync.status.pendingItems == 0 }
            await a.stop()
        }
        let again = try await instance("A", in: container)
        #expect(again.sync.status.pendingItems == nil, "every item is compared with the new store")
        try await eventually("the bike reaches the new store") { try await tableItems().map(\.name) == ["bike"] }
        await again.stop()
    }

    @Test("After a restart the cursor names what is left to push; once the archive is written over it, all is compared")
    func theCursorSurvivesARestartAndAnArchive() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.sync")
        defer { try? container.destroy() }
        let items = (0..<500).map { Gadget("item \($0)", value: $0, id: "item \($0)") }
        do {
            let a = try await instance("A", in: container, items: items)
            try await eventually("every item is pushed") { try await tableItems().count == 500 }
            a.store.update(at: 3) { $0.value = -3 }
            try await a.store.flush()
            try await eventually("an edit is pushed") { try await tableItems()[3].value == -3 }
            try await eventually("and agreed") { a.sync.status.pendingItems == 0 }
            // The archive written, with every change pushed: the cursor moves to it.
            try await Task.sleep(for: .milliseconds(300))
            let kept = a.agreementJournalSize
            try a.store.save()
            try await eventually("the cursor is kept after the archive") { a.agreementJournalSize > kept }
            await a.stop()
        }
        do {
            let a = try await instance("A", in: container)
            #expect(a.sync.status.pendingItems == 0, "nothing is left to push, and no item is compared")
            await a.stop()
            a.store.update(at: 7) { $0.value = -7 }
            try await a.store.flush()
            // Written over before it was pushed: the journal no longer shows the change.
            try a.store.save()
        }
        let a = try await instance("A", in: container)
        #expect(a.sync.status.pendingItems == nil, "the change is no longer in the journal: every item is compared")
        try await eventually("the change is pushed all the same") { try await tableItems()[7].value == -7 }
        await a.stop()
    }

    @Test("A merge kept before the store had it is done again at the next start; one the store has is left alone")
    func anInterruptedMergeIsDoneAgain() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.sync")
        defer { try? container.destroy() }
        let kept = Gadget("kept here", value: 1, id: "kept")
        let edited = Gadget("edited here", value: 2, id: "edited")
        do {
            let store = try ItemStore<Gadget>(container: container)
            store.add(kept)
            store.add(edited)
            try await store.flush()
        }
        do {
            let (log, _) = try AgreementLog.open(
                "shared-items.agreement", in: container.directory(.applicationSupport))
            func archive(_ gadget: Gadget) throws -> Data { try KeyedArchiver.archivedData(withRootObject: gadget) }
            try await log.keep(
                change: nil,
                merge: [
                    .init(
                        key: "kept", before: try archive(kept),
                        after: try archive(Gadget("merged", value: 10, id: "kept"))),
                    .init(key: "edited", before: try archive(Gadget("older", value: 0, id: "edited")), after: nil),
                    .init(key: "added", before: nil, after: try archive(Gadget("added", value: 3, id: "added"))),
                ])
        }
        let a = try await instance("A", in: container)
        try await eventually("the merge is done again") {
            a.store.allItems.map(\.name) == ["merged", "edited here", "added"]
        }
        await a.stop()
    }
}
