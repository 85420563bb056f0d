import AppSandbox
import Testing

@testable import AppStores

/// What ``ItemStore/onDurableChanges`` tells a sync engine: each change once durable,
/// in order, and never one a failed write undid.
@Suite @MainActor struct DurableChangeTests {
    /// A store on `container` whose told changes collect in the returned box.
    private func observed(_ container: AppContainer) throws -> (ItemStore<Item>, Told) {
        let store = try ItemStore<Item>(container: container)
        let told = Told()
        store.onDurableChanges = { changes, through in told.note(changes, through) }
        return (store, told)
    }

    final class Told {
        var changes: [ItemStore<Item>.Change] = []
        /// Where each batch told reached.
        var positions: [JournalPosition?] = []

        func note(_ changes: [ItemStore<Item>.Change], _ through: JournalPosition?) {
            self.changes += changes
            positions.append(through)
        }

        var summary: [String] {
            changes.map { change in
                switch change {
                case .inserted(let item, let index): "insert \(item.name) at \(index)"
                case .removed(let item, let index): "remove \(item.name) at \(index)"
                case .replaced(let item, let index): "replace \(item.name) at \(index)"
                case .moved(let item, let from, let to): "move \(item.name) \(from)->\(to)"
                case .replacedAll: "all"
                }
            }
        }
    }

    @Test("each change is told once its record is fsynced, in the order made, with the item it is about")
    func changesAreToldOnceDurable() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.durable-changes")
        defer { try? container.destroy() }
        let (store, told) = try observed(container)
        store.add(Item(name: "a"))
        store.add(Item(name: "b"))
        store.update(at: 0) { $0.name = "A" }
        store.move(from: 1, to: 0)
        store.remove(at: 1)
        #expect(told.changes.isEmpty, "nothing is told before the journal's fsync")
        try await store.flush()
        #expect(told.summary == ["insert a at 0", "insert b at 1", "replace A at 0", "move b 1->0", "remove A at 1"])
        store.replaceAll(with: [Item(name: "c")])
        try store.save()
        #expect(told.summary.last == "all", "a save tells the changes it made durable")
        #expect(told.changes.count == 6)
    }

    @Test("a change whose fsync failed is never told: the store tells that it reread the disk instead")
    func aFailedFsyncIsNeverTold() async throws {
        let faults = try WritePathFaults()
        defer { faults.destroy() }
        let (store, told) = try observed(faults.container)
        store.add(Item(name: "kept"))
        try await store.flush()
        faults.arm(.journalFsync)
        store.add(Item(name: "lost"))
        await #expect(throws: StoreError.self) { try await store.flush() }
        #expect(faults.fired(.journalFsync))
        #expect(told.summary == ["insert kept at 0", "all"])
        #expect(store.allItems.map(\.name) == ["kept"], "the store holds what the disk does")
        store.add(Item(name: "next"))
        try await store.flush()
        #expect(told.summary == ["insert kept at 0", "all", "insert next at 1"])
    }

    @Test("a store without a journal tells its changes when a save writes them; a failed save tells nothing")
    func aBackendStoreTellsOnSave() async throws {
        let backend = try InMemoryBackend<Item>()
        let store = try await ItemStore(backend: backend)
        let told = Told()
        store.onDurableChanges = { changes, through in told.note(changes, through) }
        store.add(Item(name: "a"))
        backend.failNextSaves()
        #expect(throws: StoreError.self) { try store.save() }
        #expect(told.changes.isEmpty)
        try await store.saveInBackground()
        #expect(told.summary == ["insert a at 0"])
    }

    @Test("after a restart, the store gives the changes its journal held after a position told before")
    func aRestartGivesTheChangesAfterACursor() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.durable-cursor")
        defer { try? container.destroy() }
        var cursor: JournalPosition?
        var last: JournalPosition?
        do {
            let (store, told) = try observed(container)
            store.add(Item(name: "a"))
            try await store.flush()
            cursor = try #require(told.positions.last ?? nil)
            store.add(Item(name: "b"))
            store.update(at: 0) { $0.name = "A" }
            try await store.flush()
            last = try #require(told.positions.last ?? nil)
            #expect(last != cursor)
        }
        let (from, to) = (try #require(cursor), try #require(last))
        let store = try ItemStore<Item>(container: container)
        let after = try #require(store.changes(after: from))
        let told = Told()
        told.note(after.changes, after.through)
        #expect(told.summary == ["insert b at 1", "replace A at 0"])
        #expect(after.through == last, "the last change recovered ends where the last one told did")
        #expect(store.changes(after: to)?.changes.isEmpty == true)
        store.add(Item(name: "c"))
        #expect(store.changes(after: from) == nil, "a change made since: compare every item")
    }

    @Test("a save tells where the journal starts again; positions in the journal before it name nothing after")
    func aSaveMovesTheCursorPastTheJournal() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.durable-cursor-save")
        defer { try? container.destroy() }
        var before: JournalPosition?
        var saved: JournalPosition?
        do {
            let (store, told) = try observed(container)
            store.add(Item(name: "a"))
            try await store.flush()
            before = try #require(told.positions.last ?? nil)
            try store.save()
            #expect(told.changes.count == 1, "a save with nothing to make durable tells no change")
            saved = try #require(told.positions.last ?? nil)
            #expect(saved?.records == 0)
            store.add(Item(name: "b"))
            try await store.flush()
        }
        let (old, new) = (try #require(before), try #require(saved))
        let store = try ItemStore<Item>(container: container)
        #expect(store.changes(after: old) == nil)
        let after = try #require(store.changes(after: new))
        #expect(after.changes.count == 1)
    }

    @Test(
        "a journal after an archive of the same bytes, repeating a record byte for byte, does not pass for the old one",
        arguments: [false, true])
    func theChainTellsJournalsApart(restartingBetween: Bool) async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.durable-cursor-chain")
        defer { try? container.destroy() }
        var cursor: JournalPosition?
        do {
            let (store, told) = try observed(container)
            store.add(Item(name: "a"))
            store.add(Item(name: "b"))
            try store.save()
            store.move(from: 0, to: 1)
            try await store.flush()
            cursor = try #require(told.positions.last ?? nil)
            // Back to the archive's items: the same bytes, the same digest.
            store.move(from: 0, to: 1)
            try store.save()
            if !restartingBetween {
                // The same record as the one the cursor names, byte for byte.
                store.move(from: 0, to: 1)
                try await store.flush()
                #expect(told.positions.last??.records == cursor?.records)
            }
        }
        if restartingBetween {
            let store = try ItemStore<Item>(container: container)
            store.move(from: 0, to: 1)
            try await store.flush()
        }
        let position = try #require(cursor)
        let store = try ItemStore<Item>(container: container)
        #expect(store.changes(after: position) == nil, "a move after the cursor must not pass for the one before it")
    }
}
