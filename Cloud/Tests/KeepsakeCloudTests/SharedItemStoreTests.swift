import AppStores
import Foundation
import KeyedArchive
import Locking
import Logging
import PostgresNIO
import Testing

@testable import KeepsakeCloud

/// A model as the books write one, identified by a key.
struct Gadget: KeyedSecureCoding, Identifiable, Equatable {
    static var supportsSecureCoding: Bool { true }
    var id: String
    var name: String
    var value: Int
    var serial: String? = nil

    static var archiveClassName: String { "Gadget" }

    init(_ name: String, value: Int, id: String = UUID().uuidString) {
        self.id = id
        self.name = name
        self.value = value
    }

    func encode(with coder: KeyedEncoder) {
        coder.encode(id, forKey: "id")
        coder.encode(name, forKey: "name")
        coder.encode(value, forKey: "value")
        coder.encode(serial, forKey: "serial")
    }

    init(coder: KeyedDecoder) throws {
        id = try coder.decode(String.self, forKey: "id")
        name = try coder.decode(String.self, forKey: "name")
        value = coder.decodeInteger(forKey: "value")
        serial = coder.decodeObject(forKey: "serial") as? String
    }
}

/// ``Gadget`` as an older version of the app wrote it, before it had serial numbers.
struct OldGadget: KeyedSecureCoding, Identifiable, Equatable {
    static var supportsSecureCoding: Bool { true }
    static var archiveClassName: String { "Gadget" }
    var id: String
    var name: String
    var value: Int

    init(id: String, name: String, value: Int) {
        self.id = id
        self.name = name
        self.value = value
    }

    func encode(with coder: KeyedEncoder) {
        coder.encode(id, forKey: "id")
        coder.encode(name, forKey: "name")
        coder.encode(value, forKey: "value")
    }

    init(coder: KeyedDecoder) throws {
        id = try coder.decode(String.self, forKey: "id")
        name = try coder.decode(String.self, forKey: "name")
        value = coder.decodeInteger(forKey: "value")
    }
}

@Suite("Positions kept in the shared table")
struct ItemPositionsTests {
    @Test("Items that kept their relative order keep their positions; moved and new ones go between neighbours")
    func onlyMovedItemsChange() {
        let previous = ["a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0]
        let moved = ItemPositions.assign(to: ["b", "c", "a", "d", "new"], previous: previous)
        #expect(moved[0] == 2 && moved[1] == 3 && moved[3] == 4, "b, c and d did not move relative to each other")
        #expect(moved[2] > 3 && moved[2] < 4 && moved[4] > 4)
        #expect(zip(moved, moved.dropFirst()).allSatisfy { $0 < $1 })
        #expect(ItemPositions.assign(to: ["x", "y"], previous: [:]) == [1, 2])
    }

    @Test("Items of one position in (position, id) order keep it; out of that order, one of them moves")
    func tiedPositionsAreKeptInIdOrder() {
        // Two replicas appended x and y at once: both got the position after a's.
        let previous = ["a": 1.0, "x": 2.0, "y": 2.0, "b": 3.0]
        #expect(ItemPositions.assign(to: ["a", "x", "y", "b"], previous: previous) == [1, 2, 2, 3])
        let swapped = ItemPositions.assign(to: ["a", "y", "x", "b"], previous: previous)
        #expect(zip(swapped, [1, 2, 2, 3]).filter { $0 != $1 }.count == 1, "only one of the pair moves: \(swapped)")
    }

    @Test("Placed beside a new item, an item still in order between its neighbours keeps its position")
    func aNeighbourOfANewItemKeepsItsPosition() {
        // A replica made "new" at the end of its list, then took in "taken" from
        // elsewhere after it: a save of both moves neither "taken" nor anything else.
        let agreed = ["a": 1.0, "taken": 5.0]
        #expect(ItemPositions.place(["new", "taken"], previous: agreed, after: (1, "a"), before: nil) == [3, 5])
        #expect(ItemPositions.place(["taken", "new"], previous: agreed, after: (1, "a"), before: nil) == [5, 6])
        // Out of order between the neighbours, it moves.
        #expect(ItemPositions.place(["new", "taken"], previous: agreed, after: (1, "a"), before: (4, "b")) == [2, 3])
        #expect(ItemPositions.place(["x"], previous: [:], after: (1, "a"), before: (1, "a")) == nil, "no room")
    }

    @Test("Field by field, a later edit brings back an item deleted elsewhere, and a later move alone does not")
    func aMoveDoesNotUndoADeletion() throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: Gadget("Bike", value: 300, id: "bike"))
        let edited = try KeyedArchiver.archivedData(withRootObject: Gadget("Bike", value: 500, id: "bike"))
        let ancestor = SharedItemRecord(
            id: "bike", changeTag: 1, position: 1, archive: archive,
            stamps: FieldStamps(record: HybridTimestamp(milliseconds: 1, counter: 0, replica: "a")))
        let deleted = SharedItemRecord(
            id: "bike", changeTag: 2, position: 1, archive: nil,
            stamps: FieldStamps(record: HybridTimestamp(milliseconds: 2, counter: 0, replica: "a")))
        let later = HybridTimestamp(milliseconds: 3, counter: 0, replica: "b")
        let moved = try RecordMerge.resolve(
            ancestor: ancestor, local: archive, position: 5, server: deleted, stamp: later, policy: .fieldLastWriterWins
        )
        #expect(moved == .keepServer)
        let edit = try RecordMerge.resolve(
            ancestor: ancestor, local: edited, position: 1, server: deleted, stamp: later, policy: .fieldLastWriterWins)
        #expect(edit == .write(archive: edited, position: 1, stamps: FieldStamps(record: later)))
    }

    @Test("Field by field, a deletion made here beats a move made later elsewhere, and loses to a later edit")
    func aLaterMoveDoesNotUndoADeletionMadeHere() throws {
        let stamp = { HybridTimestamp(milliseconds: $0, counter: 0, replica: "a") }
        let archive = try KeyedArchiver.archivedData(withRootObject: Gadget("Bike", value: 300, id: "bike"))
        let edited = try KeyedArchiver.archivedData(withRootObject: Gadget("Bike", value: 500, id: "bike"))
        let ancestor = SharedItemRecord(
            id: "bike", changeTag: 1, position: 1, archive: archive, stamps: FieldStamps(record: stamp(1)))
        // The deletion was offered at 2, while the database was away; elsewhere the item
        // was moved at 3, and then, in the other case, edited at 3.
        let moved = SharedItemRecord(
            id: "bike", changeTag: 2, position: 5, archive: archive,
            stamps: FieldStamps(record: stamp(1), fields: [FieldStamps.positionField: stamp(3)]))
        let deletion = try RecordMerge.resolve(
            ancestor: ancestor, local: nil, position: 1, server: moved, stamp: stamp(2), policy: .fieldLastWriterWins)
        #expect(deletion == .write(archive: nil, position: 1, stamps: FieldStamps(record: stamp(2))))
        let editedLater = SharedItemRecord(
            id: "bike", changeTag: 2, position: 1, archive: edited,
            stamps: FieldStamps(record: stamp(1), fields: ["value": stamp(3)]))
        let undone = try RecordMerge.resolve(
            ancestor: ancestor, local: nil, position: 1, server: editedLater, stamp: stamp(2),
            policy: .fieldLastWriterWins)
        #expect(undone == .keepServer, "the edit came after the deletion")
    }

    @Test(
        "Under every policy that writes, a version from a model without a field keeps that field as the row has it",
        arguments: [MergePolicy.localWins, .fieldLastWriterWins])
    func aFieldTheModelDoesNotKnowSurvives(policy: MergePolicy) throws {
        var bike = Gadget("Bike", value: 300, id: "bike")
        bike.serial = "B1K3"
        let stamp = { HybridTimestamp(milliseconds: $0, counter: 0, replica: "a") }
        let ancestor = SharedItemRecord(
            id: "bike", changeTag: 1, position: 1, archive: try KeyedArchiver.archivedData(withRootObject: bike),
            stamps: FieldStamps(record: stamp(1)))
        bike.serial = "S3R1"
        let server = SharedItemRecord(
            id: "bike", changeTag: 2, position: 1, archive: try KeyedArchiver.archivedData(withRootObject: bike),
            stamps: FieldStamps(record: stamp(1), fields: ["serial": stamp(2)]))
        let old = try KeyedArchiver.archivedData(withRootObject: OldGadget(id: "bike", name: "Bike", value: 500))
        let resolution = try RecordMerge.resolve(
            ancestor: ancestor, local: old, position: 1, server: server, stamp: stamp(3), policy: policy)
        guard case .write(let archive?, _, let stamps) = resolution else {
            Issue.record("the old model's edit is written: \(resolution)")
            return
        }
        let written = try #require(try KeyedUnarchiver.unarchivedStoredObject(ofClass: Gadget.self, from: archive))
        #expect(written.value == 500 && written.serial == "S3R1", "\(written)")
        #expect(stamps.fields["serial"] == stamp(2), "the field the old model lacks keeps its stamp")
    }

    @Test("When halving runs out of precision, every item is renumbered in order")
    func exhaustedGapsRenumber() {
        let previous = ["m": 1.0, "z": 1.0.nextUp]
        // No position lies between: "a" would share m's, and sort before it by id.
        #expect(ItemPositions.assign(to: ["m", "a", "z"], previous: previous) == [1, 2, 3])
        // "n" can share m's position: it sorts after m by id.
        #expect(ItemPositions.assign(to: ["m", "n", "z"], previous: previous) == [1, 1, 1.0.nextUp])
    }
}

/// One process's items in memory over its backend, as an app keeps them: changed in
/// place, saved, and loaded again through the backend's calls, which block no thread.
@MainActor
final class Replica {
    let backend: PostgresItemStoreBackend<Gadget>
    var allItems: [Gadget] = []

    init(_ backend: PostgresItemStoreBackend<Gadget>) async throws {
        self.backend = backend
        allItems = try await backend.load()
    }

    /// Whether the items differ from what was last agreed with the table.
    var isDirty: Bool { ((try? backend.pendingChangeCount(in: allItems)) ?? 1) > 0 }
    func add(_ item: Gadget) { allItems.append(item) }
    func move(from: Int, to: Int) { allItems.insert(allItems.remove(at: from), at: to) }
    func save() async throws { try await backend.save(allItems) }
    func reload() async throws { allItems = try await backend.load() }

    /// Loads the table's items unless that would drop changes not saved.
    func reloadIfSaved() async throws -> Bool {
        guard !isDirty else { return false }
        try await reload()
        return true
    }
}

/// Two processes' items on one shared store, each with its own backend, clock and
/// connection pool.
@MainActor
@Suite(.enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage), .serialized)
struct SharedItemStoreTests {
    let storeName = "test.items.\(UUID().uuidString)"

    func store(
        _ replica: String, policy: MergePolicy = .reportConflicts, conflicts: ConflictLog? = nil
    ) async throws -> Replica {
        let backend = PostgresItemStoreBackend<Gadget>(
            database: try #require(TestDatabase.shared), store: storeName, mergePolicy: policy, replica: replica,
            onConflict: { conflict in conflicts?.append(conflict) })
        return try await Replica(backend)
    }

    @Test(
        "Two versions of a model, one without a field: an item one wrote is no change to the other, and a move of it does not bring it back once deleted"
    )
    func anItemAnotherModelWroteIsNoChange() async throws {
        let database = try #require(TestDatabase.shared)
        let new = try await store("new", policy: .fieldLastWriterWins)
        var bike = Gadget("Bike", value: 300, id: "bike")
        bike.serial = "B1K3"
        new.add(bike)
        let old = PostgresItemStoreBackend<OldGadget>(
            database: database, store: storeName, mergePolicy: .fieldLastWriterWins, replica: "old")
        var oldItems = try await old.load()
        oldItems.append(OldGadget(id: "lamp", name: "Lamp", value: 20))
        try await old.save(oldItems)
        try await new.save()
        oldItems = try await old.load()
        try await new.reload()
        #expect(
            try old.pendingChangeCount(in: oldItems) == 0,
            "the bike, serial number and all, is as the old model reads it")
        #expect(
            try new.backend.pendingChangeCount(in: new.allItems) == 0, "the lamp, which has no serial number field, too"
        )

        // Each deletes what the other then moves.
        oldItems.removeAll { $0.id == "bike" }
        try await old.save(oldItems)
        new.allItems.removeAll { $0.id == "lamp" }
        try await new.save()
        try await old.save(oldItems.reversed())
        new.allItems.insert(Gadget("Kettle", value: 5, id: "kettle"), at: 0)
        try await new.save()
        try await new.reload()
        #expect(new.allItems.map(\.id) == ["kettle"], "a move of an item deleted elsewhere does not bring it back")
    }

    @Test(
        "A read of many rows is a query per page, each within the timeout; a whole-store read across pages still finds the forgotten deletions"
    )
    func readsArePaged() async throws {
        let database = try #require(TestDatabase.shared)
        let writer = PostgresItemStoreBackend<Gadget>(
            database: database, store: storeName, replica: "writer", tombstoneRetention: .milliseconds(1))
        let gadgets = (0..<25).map { Gadget("g\($0)", value: $0, id: "g\($0)") }
        try await writer.save(gadgets)
        let reader = SharedItemReplica(
            table: SharedItemTable(
                database: DatabaseClient(database, timeout: .seconds(10)), store: storeName,
                logger: Logger(label: "test"), rowsPerQuery: 10, itemProblem: { _, _ in nil }),
            clock: HybridLogicalClock(replica: "reader"), mergePolicy: .reportConflicts,
            tombstoneRetention: .seconds(60), onConflict: { _ in })
        #expect(try await reader.readNewRows() == 3, "25 rows, 10 a query")
        #expect(try await reader.readAllRows().count == 25)

        // The writer deletes g0 and, past the retention, forgets it: the reader, behind
        // the horizon, reads the whole store again, a page at a time.
        try await writer.save(Array(gadgets.dropFirst()))
        try await Task.sleep(for: .milliseconds(5))
        try await writer.save(Array(gadgets.dropFirst()) + [Gadget("new", value: 99, id: "new")])
        let rows = try await reader.readAllRows()
        #expect(rows.first { $0.id == "g0" }?.isDeleted == true, "the forgotten deletion is found across pages")
        #expect(rows.filter { !$0.isDeleted }.count == 25)
    }

    @Test(
        "Rows whose change tags no save gives (0, -2^63) are refused when read by id, as a save's check of its offers reads them"
    )
    func aChangeTagNoSaveGivesIsRefused() async throws {
        let database = try #require(TestDatabase.shared)
        let writer = PostgresItemStoreBackend<Gadget>(database: database, store: storeName, replica: "writer")
        try await writer.save([Gadget("Bike", value: 1, id: "bike"), Gadget("Lamp", value: 2, id: "lamp")])
        let client = DatabaseClient(database, timeout: .seconds(10))
        let (logger, store) = (Logger(label: "test"), storeName)
        let read = try await client.withConnection { connection in
            for (id, tag) in [("bike", Int64.min), ("lamp", 0)] {
                try await connection.query(
                    "UPDATE keepsake_items SET change_tag = \(tag) WHERE store = \(store) AND record_id = \(id)",
                    logger: logger)
            }
            let table = SharedItemTable(database: client, store: store, logger: logger, itemProblem: { _, _ in nil })
            return try await table.records(ids: ["bike", "lamp"], on: connection)
        }
        #expect(read.records.isEmpty, "a replica would subtract one from -2^63")
        #expect(read.rejected.map(\.key).sorted() == ["bike", "lamp"])
        #expect(read.rejected.allSatisfy { $0.reason.contains("change tag") }, "\(read.rejected.map(\.reason))")
    }

    /// Two stores that both loaded one saved item, "Bike" at 300.
    func twoStoresWithABike(
        policy: MergePolicy, conflicts: ConflictLog? = nil
    ) async throws -> (Replica, Replica) {
        let first = try await store("A", policy: policy, conflicts: conflicts)
        first.add(Gadget("Bike", value: 300, id: "bike"))
        try await first.save()
        let second = try await store("B", policy: policy, conflicts: conflicts)
        #expect(second.allItems == first.allItems)
        return (first, second)
    }

    /// Two stores of the bike with crossing edits: the first has saved a new name; the
    /// second holds a new value, made without that name, and not saved yet.
    func twoStoresWithCrossingEdits(
        policy: MergePolicy, conflicts: ConflictLog? = nil
    ) async throws -> (Replica, Replica) {
        let (first, second) = try await twoStoresWithABike(policy: policy, conflicts: conflicts)
        first.allItems[0].name = "Red bike"
        try await first.save()
        second.allItems[0].value = 500
        return (first, second)
    }

    /// Two stores merging field by field, each having saved its crossing edit.
    func twoStoresMergingEdits(conflicts: ConflictLog) async throws -> (Replica, Replica) {
        let (first, second) = try await twoStoresWithCrossingEdits(policy: .fieldLastWriterWins, conflicts: conflicts)
        try await second.save()
        return (first, second)
    }

    @Test("A stale save fails with the conflict error and all three versions; nothing of it is saved until settled")
    func staleSaveReportsTheConflict() async throws {
        let (first, second) = try await twoStoresWithCrossingEdits(policy: .reportConflicts)
        let error = try await #require(throws: StoreError.self) { try await second.save() }
        #expect(error.code == .conflict)
        let conflict = try #require(error.conflicts.first)
        #expect(error.conflicts.count == 1 && conflict.recordID == "bike")
        let versions = try conflict.versions(as: Gadget.self)
        #expect(versions.ancestor?.name == "Bike" && versions.ancestor?.value == 300)
        #expect(versions.local?.name == "Bike" && versions.local?.value == 500)
        #expect(versions.server?.name == "Red bike" && versions.server?.value == 300)
        #expect(second.isDirty, "the refused change is still there to settle")
        #expect(try await !second.reloadIfSaved(), "a reload would drop the refused change")
        #expect(try await store("C").allItems.map(\.value) == [300], "nothing of the stale save reached the table")
        // Saving again without settling is refused again: never a silent overwrite.
        await #expect(throws: StoreError.self) { try await second.save() }

        // The app settles: the server's version with its own change on top.
        var settled = try #require(versions.server)
        settled.value = 500
        second.allItems[0] = settled
        let backend = second.backend
        backend.settle(error.conflicts)
        try await second.save()
        #expect(try await store("D").allItems == [Gadget("Red bike", value: 500, id: "bike")])
    }

    @Test("An item deleted on both sides, or changed to the same version, is no conflict")
    func sameChangeOnBothSidesIsNoConflict() async throws {
        let (first, second) = try await twoStoresWithABike(policy: .reportConflicts)
        first.allItems.removeAll()
        try await first.save()
        second.allItems.removeAll()
        try await second.save()
        #expect(try await store("C").allItems.isEmpty)
        first.add(Gadget("Lamp", value: 20, id: "lamp"))
        try await first.save()
        #expect(try await second.reloadIfSaved())
        first.allItems[0].value = 25
        second.allItems[0].value = 25
        try await first.save()
        try await second.save()
        #expect(try await store("D").allItems.map(\.value) == [25])
    }

    @Test("reload() drops the changes a conflict refused, for the server's versions")
    func reloadTakesTheServersVersions() async throws {
        let (first, second) = try await twoStoresWithCrossingEdits(policy: .reportConflicts)
        await #expect(throws: StoreError.self) { try await second.save() }
        try await second.reload()
        #expect(second.allItems == [Gadget("Red bike", value: 300, id: "bike")] && !second.isDirty)
        second.allItems[0].value = 400
        try await second.save()
        #expect(try await store("C").allItems == [Gadget("Red bike", value: 400, id: "bike")])
    }

    @Test("Field by field, last writer wins: a name changed there and a value changed here both survive")
    func fieldMergeKeepsBothEdits() async throws {
        let conflicts = ConflictLog()
        let (first, second) = try await twoStoresMergingEdits(conflicts: conflicts)
        #expect(conflicts.all.map(\.recordID) == ["bike"], "the settled conflict is reported")
        #expect(try await second.reloadIfSaved())
        #expect(try await first.reloadIfSaved())
        for store in [first, second] {
            #expect(store.allItems.map(\.name) == ["Red bike"] && store.allItems.map(\.value) == [500])
        }
    }

    @Test("An edit made after a merge, before reloading it, keeps the other side's fields and is no new conflict")
    func editBeforeReloadingAMergeKeepsIt() async throws {
        let conflicts = ConflictLog()
        let (first, second) = try await twoStoresMergingEdits(conflicts: conflicts)
        second.allItems[0].serial = "B1K3"
        try await second.save()
        #expect(try await store("C").allItems == [Gadget("Red bike", value: 500, id: "bike").with(serial: "B1K3")])
        #expect(conflicts.all.count == 1, "only the first save met another process's change")
    }

    @Test("Both sides change one field: the later change wins under field merging; each policy is applied")
    func policiesOnTheSameField() async throws {
        for policy in [MergePolicy.fieldLastWriterWins, .localWins, .serverWins] {
            let conflicts = ConflictLog()
            let names = "\(policy)"
            let first = try await store("A-\(names)", policy: policy, conflicts: conflicts)
            let id = UUID().uuidString
            first.add(Gadget("Bike", value: 300, id: id))
            try await first.save()
            let second = try await store("B-\(names)", policy: policy, conflicts: conflicts)
            first.allItems[first.allItems.firstIndex { $0.id == id }!].name = "First's bike"
            try await first.save()
            second.allItems[second.allItems.firstIndex { $0.id == id }!].name = "Second's bike"
            try await second.save()
            let saved = try await store("C").allItems.first { $0.id == id }?.name
            #expect(saved == (policy == .serverWins ? "First's bike" : "Second's bike"), "\(policy)")
            let conflict = try #require(conflicts.all.first, "\(policy): the conflict is reported")
            #expect(try conflict.versions(as: Gadget.self).local?.name == "Second's bike", "\(policy)")
        }
    }

    @Test("An item deleted there and edited here: the later change wins")
    func deletionAgainstAnEdit() async throws {
        let (first, second) = try await twoStoresWithABike(policy: .fieldLastWriterWins)
        first.allItems.removeAll()
        try await first.save()
        second.allItems[0].value = 900
        try await second.save()
        #expect(try await store("C").allItems.map(\.value) == [900], "the edit came after the deletion")
        second.allItems.removeAll()
        try await second.save()
        #expect(try await store("D").allItems.isEmpty)
        #expect(try await first.reloadIfSaved())
        #expect(first.allItems.isEmpty)
    }

    @Test("A move there and an edit of another item here do not conflict; both stores end in one order")
    func moveAndEditOfOtherItems() async throws {
        let first = try await store("A")
        for name in ["one", "two", "three"] { first.add(Gadget(name, value: 1, id: name)) }
        try await first.save()
        let second = try await store("B")
        first.move(from: 0, to: 2)
        try await first.save()
        second.allItems[1].value = 2
        try await second.save()
        for store in [first, second] {
            #expect(try await store.reloadIfSaved())
            #expect(store.allItems.map(\.id) == ["two", "three", "one"])
            #expect(store.allItems.map(\.value) == [2, 1, 1])
        }
    }

    /// The app keeps the agreement before each save (``PostgresItemStoreBackend/agreement(offering:)``)
    /// and after it. Killed between the save's commit and the second, it restarts from the
    /// first with its items as its container kept them.
    @Test(
        "Killed between a save's commit and the agreement after it: a delete made after the restart is pushed, and an edit is no conflict with the process's own save",
        arguments: [false, true])
    func restartAfterAnUnrecordedCommitKnowsItsOwnRows(offeringAgain: Bool) async throws {
        let first = try await store("A")
        first.add(Gadget("Bike", value: 300, id: "bike"))
        first.add(Gadget("Lamp", value: 20, id: "lamp"))
        try await first.save()
        first.allItems[1].value = 25
        first.add(Gadget("Desk", value: 90, id: "desk"))
        let kept = try await first.backend.agreement(offering: first.allItems)
        try await first.save()

        let restarted = PostgresItemStoreBackend<Gadget>(
            database: try #require(TestDatabase.shared), store: storeName, replica: "A")
        try restarted.restoreAgreement(kept)
        var items = first.allItems.filter { $0.id != "desk" }
        items[1].value = 30
        #expect(try restarted.pendingChangeCount(in: items) > 0, "the restored offers wait for a save to settle them")
        // As the app does before each save; the restored offers are settled first.
        if offeringAgain { _ = try await restarted.agreement(offering: items) }
        // With .reportConflicts, the lamp's edit would throw if its base were the version
        // before the unrecorded save.
        try await restarted.save(items)
        #expect(try await store("C").allItems == items, "the desk's delete and the lamp's edit reached the table")
    }

    /// The server stops, or the connection breaks, just after a save's COMMIT: the save
    /// fails, though its rows are in the table. They are the process's own all the
    /// same: a delete made next is pushed (else the item would come back from the
    /// table on the next load), and an edit is no conflict with itself.
    @Test(
        "A save that committed though its answer was lost: a delete made next is pushed, an edit is no conflict",
        arguments: [true, false])
    func aSaveWhoseAnswerWasLostKnowsItsOwnRows(deleting: Bool) async throws {
        let proxied = try ProxiedDatabase()
        defer { proxied.close() }
        let (proxy, database) = (proxied.proxy, proxied.database)
        proxy.stall(false)
        let first = try await Replica(
            PostgresItemStoreBackend<Gadget>(database: database, store: storeName, replica: "A"))
        first.add(Gadget("Bike", value: 300, id: "bike"))
        proxy.cutAtNextCommit()
        await #expect(throws: StoreError.self) { try await first.save() }
        let observer = try await store("B")
        let deadline = ContinuousClock.now + .seconds(5)
        while observer.allItems.isEmpty {
            try #require(ContinuousClock.now < deadline, "the save's COMMIT did not reach the table")
            try await Task.sleep(for: .milliseconds(20))
            try await observer.reload()
        }

        if deleting { first.allItems.removeAll() } else { first.allItems[0].value = 310 }
        // With .reportConflicts, an edit would throw if the bike's row were taken for
        // someone else's.
        try await first.save()
        #expect(try await store("C").allItems == first.allItems, "the change reached the table")
    }

    /// The app offers its changes before each save (``PostgresItemStoreBackend/agreement(offering:)``).
    /// While the database is away, a change counts from the save that first offered
    /// it, even after a save has failed, so a later change made elsewhere wins its field.
    /// Replica "A", merging field by field, on `database` (a proxied one), with a
    /// short timeout so that a save during an outage fails soon.
    func replicaThrough(_ database: CloudDatabase) async throws -> Replica {
        try await Replica(
            PostgresItemStoreBackend<Gadget>(
                database: database, store: storeName, mergePolicy: .fieldLastWriterWins, replica: "A",
                timeout: .seconds(2)))
    }

    /// Offers and saves `replica`'s items until a save succeeds, once the database is
    /// back; fails the test after 15 s.
    func saveOnceBack(_ replica: Replica) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            _ = try? await replica.backend.agreement(offering: replica.allItems)
            do {
                try await replica.save()
                return
            } catch {
                try #require(ContinuousClock.now < deadline, "the save after the outage failed: \(error)")
            }
        }
    }

    @Test("An edit made while the database is away keeps the time it was first offered: a later edit elsewhere wins")
    func anEditDuringAnOutageKeepsItsFirstOfferedTime() async throws {
        let proxied = try ProxiedDatabase()
        defer { proxied.close() }
        let (proxy, database) = (proxied.proxy, proxied.database)
        proxy.stall(false)
        let first = try await replicaThrough(database)
        first.add(Gadget("Bike", value: 300, id: "bike"))
        try await first.save()
        let second = try await store("B", policy: .fieldLastWriterWins)

        proxy.cutOff()
        first.allItems[0].value = 310
        _ = try await first.backend.agreement(offering: first.allItems)
        await #expect(throws: (any Error).self) { try await first.save() }
        // A second edit while the first save's fate is unknown: offered, though the
        // table cannot be read to settle the first.
        first.allItems[0].name = "First's bike"
        _ = try await first.backend.agreement(offering: first.allItems)
        await #expect(throws: (any Error).self) { try await first.save() }
        second.allItems[0].name = "Second's bike"
        try await second.save()

        proxy.stall(false)
        try await saveOnceBack(first)
        let items = try await store("C").allItems
        #expect(items.map(\.name) == ["Second's bike"], "the name edited later, elsewhere, wins")
        #expect(items.map(\.value) == [310], "the value edited here only is kept")
    }

    @Test("A deletion made while the database is away beats a move of the item made later elsewhere")
    func aDeletionDuringAnOutageBeatsALaterMove() async throws {
        let proxied = try ProxiedDatabase()
        defer { proxied.close() }
        let (proxy, database) = (proxied.proxy, proxied.database)
        proxy.stall(false)
        let first = try await replicaThrough(database)
        for (name, id) in [("Bike", "bike"), ("Lamp", "lamp"), ("Cup", "cup")] {
            first.add(Gadget(name, value: 10, id: id))
        }
        try await first.save()
        let second = try await store("B", policy: .fieldLastWriterWins)

        proxy.cutOff()
        first.allItems.removeFirst()
        _ = try await first.backend.agreement(offering: first.allItems)
        await #expect(throws: (any Error).self) { try await first.save() }
        // Later, elsewhere: the bike moves to the end, a write of its row alone.
        second.move(from: 0, to: 2)
        try await second.save()

        proxy.stall(false)
        try await saveOnceBack(first)
        #expect(try await store("C").allItems.map(\.id) == ["lamp", "cup"], "the deletion stands")
    }

    @Test("A store's watcher is called within a second of another store's save")
    func watchersHearOfSaves() async throws {
        let first = try await store("A")
        let backend = PostgresItemStoreBackend<Gadget>(database: try #require(TestDatabase.shared), store: storeName)
        let calls = Locked(0)
        let watching = Task { await backend.watch { calls.withLock { $0 += 1 } } }
        defer { watching.cancel() }
        let deadline = ContinuousClock.now + .seconds(10)
        while calls.withLock({ $0 }) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let before = calls.withLock { $0 }
        first.add(Gadget("Bike", value: 1))
        try await first.save()
        let saved = ContinuousClock.now
        while calls.withLock({ $0 }) == before, ContinuousClock.now < saved + .seconds(1) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(calls.withLock { $0 } > before)
        #expect(try await backend.load().map(\.name) == ["Bike"])
    }
}

extension Gadget {
    func with(serial: String?) -> Gadget {
        var copy = self
        copy.serial = serial
        return copy
    }
}

/// The conflicts a backend reported as it settled them.
final class ConflictLog: Sendable {
    private let entries = Locked<[RecordConflict]>([])
    func append(_ conflict: RecordConflict) { entries.withLock { $0.append(conflict) } }
    var all: [RecordConflict] { entries.withLock { $0 } }
}
