public import AppStores
public import Foundation
public import KeyedArchive
import Logging

/// Items that several processes share: the items live in PostgreSQL, a row each, with
/// CloudKit's optimistic concurrency. Each process keeps its items in its container
/// (an ``ItemStore`` with a journal, durable before a change is acknowledged) and
/// pushes and pulls them here, so that the database is never waited for by a change.
///
/// Every row carries the server change tag of the save that wrote it. A save writes
/// only the items changed since this process last loaded them; when one of those was
/// also changed by another process in the meantime, the save settles it by
/// ``mergePolicy``: by default it saves nothing and throws ``StoreError`` `.conflict`
/// with each item's ancestor, local and server versions (``RecordConflict``), and the
/// app settles the items in memory and calls ``settle(_:)`` before saving again; the
/// other policies resolve it and report it to ``onConflict``. A change counts, in
/// merges, from the first save that offered it, however many failed before. A deleted
/// item keeps its row, so that every process learns of the deletion. The order of the
/// items is kept as a position per row, changed only for the items that moved.
///
/// ```swift
/// let database = try CloudDatabase(url: "postgres://me@127.0.0.1:5432/app")   // run it as a service
/// let backend = PostgresItemStoreBackend<Item>(
///     database: database, store: "com.example.Homepwner", mergePolicy: .fieldLastWriterWins)
/// let itemStore = try ItemStore<Item>(container: .main)       // the container is the truth
/// try await backend.save(itemStore.allItems)                  // push what changed since the last load
/// if try await backend.refresh() {                            // others saved: take their items in
///     itemStore.replaceAll(with: try await backend.load())
///     try await itemStore.flush()
/// }
/// ```
///
/// Items are identified by `id`; two items with the same id cannot be saved. Loads and
/// saves suspend, blocking no thread, for at most ``timeout``. What a save is a change
/// from can be kept across restarts (``agreement()``, ``restoreAgreement(_:)``).
///
/// Photos and other large blobs stay out of the table, in a ``PostgresBlobStore``
/// beside it, named by the item's id. Deleting an item leaves its photo: a concurrent
/// edit elsewhere may bring the item back, and the photo must come back with it. The
/// photo goes with the item's row, after ``tombstoneRetention`` (30 days unless told).
public final class PostgresItemStoreBackend<Model: KeyedArchivable & Identifiable>: Sendable {
    /// The store's name; many stores share one table.
    public let store: String
    public var mergePolicy: MergePolicy { replica.mergePolicy }
    /// How long a load or save waits for the database before it fails (`.readFailed`,
    /// `.writeFailed`). A save that timed out may still be committed; the next save
    /// then finds its own version in the table and writes nothing more.
    public let timeout: Duration
    /// How long a deleted item's row, and its photo, are kept.
    public var tombstoneRetention: Duration { replica.tombstoneRetention }
    private let replica: SharedItemReplica

    /// - Parameters:
    ///   - database: the process's client, which must be running while the backend is used.
    ///   - mergePolicy: how a save settles items changed elsewhere since they were loaded.
    ///   - replica: this process's name in the stamps of its changes; by default a new one.
    ///   - tombstoneRetention: how long the table keeps a deleted item's row, which
    ///     every process needs to learn of the deletion; then the row goes, with the
    ///     photo named by the item's id (``PostgresBlobStore``) written before it. A
    ///     process away for longer reads the whole store again, and its changes to an
    ///     item whose deletion was forgotten are dropped and reported as conflicts with
    ///     no server version: the deletion stands, photo and all.
    ///   - onConflict: called, on the save's thread, with each conflict a policy other
    ///     than `.reportConflicts` settled, so that no change is dropped silently.
    public init(
        database: CloudDatabase, store: String, mergePolicy: MergePolicy = .reportConflicts,
        replica: String? = nil, timeout: Duration = .seconds(10),
        tombstoneRetention: Duration = .seconds(30 * 86_400),
        onConflict: @escaping @Sendable (RecordConflict) -> Void = { _ in }
    ) {
        self.store = store
        self.timeout = timeout
        var logger = Logger(label: "keepsake.cloud.items")
        logger.logLevel = .critical
        self.replica = SharedItemReplica(
            table: SharedItemTable(
                database: DatabaseClient(database, timeout: timeout), store: store, logger: logger,
                itemProblem: Self.problem(id:archive:)),
            clock: HybridLogicalClock(replica: replica ?? UUID().uuidString), mergePolicy: mergePolicy,
            tombstoneRetention: tombstoneRetention, onConflict: onConflict, readHere: Self.readHere(_:))
    }

    /// `archive` as this model reads it: its item decoded and archived again.
    private static func readHere(_ archive: Data) -> Data? {
        readItem(archive)?.archive
    }

    /// The item `archive` holds, and its archive as this model writes it; `nil` when
    /// it holds no item of the model.
    private static func readItem(_ archive: Data) -> (item: Model, archive: Data)? {
        guard let item = try? KeyedUnarchiver.unarchivedStoredObject(ofClass: Model.self, from: archive),
            let held = try? KeyedArchiver.archivedData(withRootObject: item)
        else { return nil }
        return (item, held)
    }

    /// Why `archive`, the row of item `id`, holds no item of the store: it does not
    /// decode as a `Model`, or the item in it has another id (two rows would then
    /// hold one item).
    private static func problem(id: String, archive: Data) -> String? {
        let item: Model?
        do {
            item = try KeyedUnarchiver.unarchivedStoredObject(ofClass: Model.self, from: archive)
        } catch {
            return "the archive holds no \(Model.self): \(error)"
        }
        guard let item else { return "the archive holds no \(Model.self)" }
        let archivedID = String(describing: item.id)
        guard archivedID == id else { return "the archived item has the id \(archivedID.prefix(64)), not its row's" }
        return nil
    }

    /// Every item the table holds for the store, in order, which saves are then
    /// changes from. Rows that hold no item of the store are skipped, and moved to
    /// the quarantine (``PostgresKeyValueSync/quarantinedRows()`` lists them).
    /// - Throws: ``StoreError`` `.readFailed` (the database), `.corruptArchive` (a row
    ///   that is not an archive of `Model`; nothing is changed).
    public func load() async throws(StoreError) -> [Model] {
        let records: [SharedItemRecord]
        do {
            records = try await replica.readAllRows()
        } catch {
            throw StoreError(.readFailed, "cannot read the shared store \(store)", underlyingError: error)
        }
        return try items(of: records)
    }

    /// The items `records` hold, in order; the store's items in memory are then these.
    private func items(of records: [SharedItemRecord]) throws(StoreError) -> [Model] {
        var items: [Model] = []
        for record in records.sorted(by: { ($0.position, $0.id) < ($1.position, $1.id) }) {
            guard let archive = record.archive else { continue }
            do {
                guard let item = try KeyedUnarchiver.unarchivedStoredObject(ofClass: Model.self, from: archive) else {
                    throw KeyedArchiveError(.keyNotFound, "the archive has no root object")
                }
                items.append(item)
            } catch {
                throw StoreError(
                    .corruptArchive, "item \(record.id) of the shared store \(store) cannot be read",
                    key: record.id, underlyingError: error)
            }
        }
        replica.loaded(records)
        return items
    }

    /// Saves the items changed since they were loaded (or since the agreement
    /// restored), in one transaction.
    /// - Throws: ``StoreError`` `.conflict` (with `.reportConflicts`; nothing is
    ///   saved), `.writeFailed` (nothing is saved), `.encodingFailed`.
    public func save(_ items: [Model]) async throws(StoreError) {
        try await save(.every(try snapshot(of: items)))
    }

    /// Saves the changes of `scope` that the table does not hold yet, in one transaction.
    /// - Throws: as ``save(_:)``.
    func save(_ scope: SaveScope) async throws(StoreError) {
        do {
            try await replica.commit(scope, stamp: replica.clock.tick())
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.writeFailed, "cannot save to the shared store \(store)", underlyingError: error)
        }
    }

    /// How many of `items` a save has still to write: those that differ from what this
    /// process last agreed with the table, deletions included.
    /// - Throws: ``StoreError`` `.encodingFailed`.
    public func pendingChangeCount(in items: [Model]) throws(StoreError) -> Int {
        replica.pendingCount(of: try snapshot(of: items))
    }

    /// What this process last agreed with the table, as bytes to keep with the items:
    /// after a restart, ``restoreAgreement(_:)`` makes the next save a change from it,
    /// so that changes made while the database was away are saved and merged as such.
    /// - Throws: ``StoreError`` `.encodingFailed`.
    public func agreement() throws(StoreError) -> Data {
        do {
            return try JSONEncoder().encode(replica.agreement)
        } catch {
            throw StoreError(.encodingFailed, "cannot encode what was agreed with \(store)", underlyingError: error)
        }
    }

    /// What to keep just before a save of `items`: ``agreement()`` with the save's
    /// changes offered. A process killed after that save's commit, before it kept the
    /// agreement after it, then knows on restart the rows the save wrote as its own: its
    /// next save reads the table first, so a delete made meanwhile is pushed and an
    /// edit is no conflict with itself.
    /// - Throws: ``StoreError`` `.encodingFailed`.
    public func agreement(offering items: [Model]) async throws(StoreError) -> Data {
        await offer(.every(try snapshot(of: items)))
        return try agreement()
    }

    /// Records the changes a save of `scope` would make as offered (see
    /// ``agreement(offering:)``); returns how many there are.
    func offer(_ scope: SaveScope) async -> Int {
        await replica.offer(scope, stamp: replica.clock.tick())
    }

    /// What changed in the agreement since it was last taken, as bytes for
    /// ``restoreAgreement(_:changes:)``: the whole agreement when the items were loaded
    /// anew since, else the rows and offers that changed; `nil` when nothing did.
    /// - Throws: ``StoreError`` `.encodingFailed`.
    func takeAgreementChange() throws(StoreError) -> (whole: Data?, change: Data?) {
        let (whole, change) = replica.takeAgreementChange()
        do {
            if let whole { return (try JSONEncoder().encode(whole), nil) }
            return (nil, change.isEmpty ? nil : try JSONEncoder().encode(change))
        } catch {
            throw StoreError(.encodingFailed, "cannot encode what was agreed with \(store)", underlyingError: error)
        }
    }

    /// What ``takeAgreementChange()`` returned was not kept: the next take is the whole
    /// agreement.
    func agreementNotKept() { replica.agreementNotKept() }

    /// ``restoreAgreement(_:)`` of `data`, with the changes ``takeAgreementChange()``
    /// returned after it applied in order.
    /// - Throws: ``StoreError`` `.corruptArchive` for bytes that are not one; nothing changes.
    func restoreAgreement(_ data: Data?, changes: [Data]) throws(StoreError) {
        let agreement: SharedItemReplica.Agreement?
        let decoded: [SharedItemReplica.AgreementChange]
        do {
            agreement = try data.map { try JSONDecoder().decode(SharedItemReplica.Agreement.self, from: $0) }
            decoded = try changes.map { try JSONDecoder().decode(SharedItemReplica.AgreementChange.self, from: $0) }
        } catch {
            throw StoreError(.corruptArchive, "not what was agreed with \(store)", underlyingError: error)
        }
        // Its change tags and rows are another store's: none of them holds here.
        if let other = agreement?.store, other != store {
            throw StoreError(.corruptArchive, "what was agreed is with the shared store \(other), not \(store)")
        }
        replica.restore(agreement ?? SharedItemReplica.Agreement(base: [], edits: []), changes: decoded)
    }

    /// The scope of a save of the `changed` items (by ascending index in `items`, each
    /// as it was made durable) and of the items `deleted`: their archives, and positions
    /// between their unchanged neighbours'. `nil` when a neighbour was never agreed, or
    /// the gap between two has no room left: a save of every item must place them.
    /// - Throws: ``StoreError`` `.encodingFailed`.
    func scope(
        of items: [Model], changed: [(index: Int, item: Model)], deleted: [String]
    ) throws(StoreError) -> SaveScope? {
        var archived: [ArchivedItem] = []
        var positions: [Double] = []
        var start = 0
        while start < changed.count {
            var end = start
            while end + 1 < changed.count, changed[end + 1].index == changed[end].index + 1 { end += 1 }
            let run = try changed[start...end].map { change throws(StoreError) in try archive(change.item) }
            let (first, last) = (changed[start].index, changed[end].index)
            let left = first > 0 ? String(describing: items[first - 1].id) : nil
            let right = last + 1 < items.count ? String(describing: items[last + 1].id) : nil
            guard let placed = place(run.map(\.id), after: left, before: right) else { return nil }
            archived += run
            positions += placed
            start = end + 1
        }
        return .some(archived, positions: positions, deleted: deleted)
    }

    /// Positions for `ids`, in order, between the agreed positions of `left` and
    /// `right`: their own agreed ones where those are still in order there (an item
    /// that only stands beside a new one, or that was taken in from elsewhere, does
    /// not move), new ones spread between for the rest. `nil` when a neighbour has no
    /// agreed position or there is no room.
    private func place(_ ids: [String], after left: String?, before right: String?) -> [Double]? {
        let agreed = replica.agreedPositions(of: ids + [left, right].compactMap { $0 })
        var low: (Double, String)?
        var high: (Double, String)?
        if let left {
            guard let position = agreed[left] else { return nil }
            low = (position, left)
        }
        if let right {
            guard let position = agreed[right] else { return nil }
            high = (position, right)
        }
        return ItemPositions.place(ids, previous: agreed, after: low, before: high)
    }

    /// The item's id as the table has it, and its archive.
    private func archive(_ item: Model) throws(StoreError) -> ArchivedItem {
        let id = String(describing: item.id)
        do {
            return ArchivedItem(id: id, archive: try KeyedArchiver.archivedData(withRootObject: item))
        } catch {
            throw StoreError(.encodingFailed, "cannot archive item \(id)", key: id, underlyingError: error)
        }
    }

    /// The rows changed elsewhere (or merged here) that the items in memory do not
    /// hold yet, ordered by position; ``accept(_:read:)`` says memory took them.
    func rowsNotInMemory() -> [SharedItemRecord] { replica.staleRecords() }

    /// The items in memory now hold `rows`, read as `read` has them (``read(_:)``);
    /// returns what was agreed for them before, for ``unaccept(_:)``.
    func accept(_ rows: [SharedItemRecord], read: [String: (item: Model, archive: Data)]) -> [String: SharedItemRecord?]
    {
        replica.accept(rows.map(\.id), held: read.mapValues(\.archive))
    }

    /// The item each of `rows` holds, and its archive as this model writes it: what the
    /// store gets, decoded once. A row that holds no item of the model is left out.
    func read(_ rows: [SharedItemRecord]) -> [String: (item: Model, archive: Data)] {
        var read: [String: (item: Model, archive: Data)] = [:]
        for row in rows {
            if let archive = row.archive, let item = Self.readItem(archive) { read[row.id] = item }
        }
        return read
    }

    /// Takes back an ``accept(_:read:)`` whose items did not reach memory.
    func unaccept(_ previous: [String: SharedItemRecord?]) { replica.unaccept(previous) }

    /// Where the agreed row of item `id` sorts; `nil` for an item never agreed, or deleted.
    func agreedPosition(of id: String) -> Double? { replica.agreedPositions(of: [id])[id] }

    /// Takes back what ``agreement()`` returned before a restart.
    /// - Throws: ``StoreError`` `.corruptArchive` for bytes that are not one; nothing changes.
    public func restoreAgreement(_ data: Data) throws(StoreError) {
        try restoreAgreement(data, changes: [])
    }

    /// The items archived one by one.
    /// - Throws: ``StoreError`` `.encodingFailed`, also when two items have one id.
    func snapshot(of items: [Model]) throws(StoreError) -> [ArchivedItem] {
        var archived: [ArchivedItem] = []
        var ids = Set<String>()
        archived.reserveCapacity(items.count)
        for item in items {
            let item = try archive(item)
            guard ids.insert(item.id).inserted else {
                throw StoreError(.encodingFailed, "two items have the id \(item.id)", key: item.id)
            }
            archived.append(item)
        }
        return archived
    }

    /// Reads what other processes saved since the last read, without blocking the
    /// caller's thread; returns whether the items last loaded are out of date (a save
    /// elsewhere, or a merge made by a save here): then ``load()`` reads them.
    /// - Throws: the database's error.
    public func refresh() async throws -> Bool {
        try await replica.refresh()
    }

    /// Says that the app has seen the server versions of `conflicts` (from a
    /// `.conflict` error) and settled those items in memory, for instance with
    /// `conflict.server`'s fields and its own on top: the next save writes them, unless
    /// the server's versions changed again meanwhile, which is a new conflict.
    public func settle(_ conflicts: [RecordConflict]) {
        replica.settle(conflicts)
    }

    /// Runs until cancelled, calling `changed` whenever another process may have saved
    /// (and once when it starts listening): the moment to ``refresh()``.
    public func watch(_ changed: @escaping @Sendable () -> Void) async {
        await replica.table.watch(changed)
    }
}
