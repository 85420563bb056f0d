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
            tombstoneRetention: tombstoneRetention, onConflict: onConflict)
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
            records = try await replica.readNewRows()
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
        let snapshot = try snapshot(of: items)
        do {
            try await replica.commit(snapshot.items, stamp: snapshot.stamp)
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
        replica.pendingCount(of: try snapshot(of: items).items)
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
        let snapshot = try snapshot(of: items)
        await replica.offer(snapshot.items, stamp: snapshot.stamp)
        return try agreement()
    }

    /// Takes back what ``agreement()`` returned before a restart.
    /// - Throws: ``StoreError`` `.corruptArchive` for bytes that are not one; nothing changes.
    public func restoreAgreement(_ data: Data) throws(StoreError) {
        do {
            replica.restore(try JSONDecoder().decode(SharedItemReplica.Agreement.self, from: data))
        } catch {
            throw StoreError(.corruptArchive, "not what was agreed with \(store)", underlyingError: error)
        }
    }

    /// The items archived one by one, stamped with the time of the save.
    /// - Throws: ``StoreError`` `.encodingFailed`, also when two items have one id.
    func snapshot(of items: [Model]) throws(StoreError) -> SharedItemSnapshot {
        var archived: [ArchivedItem] = []
        var ids = Set<String>()
        archived.reserveCapacity(items.count)
        for item in items {
            let id = String(describing: item.id)
            guard ids.insert(id).inserted else {
                throw StoreError(.encodingFailed, "two items have the id \(id)", key: id)
            }
            do {
                archived.append(ArchivedItem(id: id, archive: try KeyedArchiver.archivedData(withRootObject: item)))
            } catch {
                throw StoreError(.encodingFailed, "cannot archive item \(id)", key: id, underlyingError: error)
            }
        }
        return SharedItemSnapshot(items: archived, stamp: replica.clock.tick())
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

/// The items of a save of a ``PostgresItemStoreBackend``, archived one by one, and the
/// time of the save.
struct SharedItemSnapshot: Sendable {
    let items: [ArchivedItem]
    let stamp: HybridTimestamp
}
