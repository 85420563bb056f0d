import Foundation
import Logging
import PostgresNIO

/// The shared item stores' table in PostgreSQL: a row per item of every store, each
/// with the change tag of the save that wrote it. Saves of one store take a lock of
/// that store's, so change tags are committed in order: a replica that has read every
/// tag up to n has read every row written up to n.
final class SharedItemTable: Sendable {
    let database: DatabaseClient
    let store: String
    let logger: Logger
    let quarantine: RowQuarantine
    /// Why an item's archive, which reads as a keyed archive, is still no item of the
    /// store's type (it does not decode as one, or names another id); nil when it is.
    let itemProblem: @Sendable (_ id: String, _ archive: Data) -> String?
    /// How many rows one query of a read outside a save takes: a new replica's read of
    /// a large store is many queries, each within the client's timeout.
    let rowsPerQuery: Int
    static let channel = "keepsake_items"

    init(
        database: DatabaseClient, store: String, logger: Logger, rowsPerQuery: Int = 1_000,
        itemProblem: @escaping @Sendable (_ id: String, _ archive: Data) -> String?
    ) {
        self.rowsPerQuery = rowsPerQuery
        self.database = database
        self.store = store
        self.logger = logger
        self.itemProblem = itemProblem
        quarantine = RowQuarantine(store: store)
    }

    /// Brings the tables up to date if they are not, once per backend.
    func prepare() async throws {
        try CloudDatabaseError.checkStoreName(store)
        try await schema.migrate(on: database, logger: logger)
    }

    private let schema = DatabaseSchema()

    /// Takes the store's lock until the transaction ends.
    func lock(on connection: PostgresConnection) async throws {
        try await StoreLock.take("items", of: store, on: connection, logger: logger)
    }

    /// What a read of the table found: the rows, and those that failed their checks,
    /// for ``RowQuarantine/move(_:on:logger:)`` once any transaction of the read ends.
    struct Read {
        var records: [SharedItemRecord] = []
        var rejected: [RejectedRow] = []
        /// The largest change tag read, of a row taken or refused.
        var lastTag: Int64 = 0
        /// The newest deletion the table forgot, when it forgot any.
        var horizon: Int64?
        /// Whether the read holds every row of the store: a row not in it is gone.
        var isWholeStore = false
        /// Whether a page ended it (``records(after:limit:continuing:on:)``): rows may
        /// follow, after `pageEnd`, the last tag of the page (a read of the whole store
        /// starts below `lastTag`).
        var isPartial = false
        var pageEnd: Int64 = 0

        /// Adds `page`, the next of the same read.
        mutating func append(_ page: Read) {
            records += page.records
            rejected += page.rejected
            lastTag = max(lastTag, page.lastTag)
            (isPartial, pageEnd) = (page.isPartial, page.pageEnd)
        }
    }

    /// Every row written after change tag `tag`, deletions included, checked (``RowCheck``);
    /// every row of the store when the table has forgotten deletions after `tag`, unless
    /// the read is `continuing` one whose first page did. At most `limit` rows, when given.
    func records(
        after tag: Int64, limit: Int? = nil, continuing: Bool = false, on connection: PostgresConnection
    ) async throws -> Read {
        let horizon = try await connection.query(
            "SELECT change_tag FROM keepsake_items_horizon WHERE store = \(store)", logger: logger
        ).collect().first?.decode(Int64.self)
        let from = !continuing && horizon.map { tag < $0 } ?? false ? 0 : tag
        let rows = try await connection.query(
            """
            SELECT record_id, change_tag, position, archive, stamp_milliseconds, stamp_counter, stamp_replica,
                field_stamps
            FROM keepsake_items WHERE store = \(store) AND change_tag > \(from) ORDER BY change_tag
            LIMIT \(limit ?? Int.max)
            """, logger: logger)
        var read = Read(lastTag: tag, horizon: horizon, isWholeStore: from == 0, pageEnd: from)
        let count = try await take(rows, into: &read)
        read.isPartial = limit.map { count >= $0 } ?? false
        return read
    }

    /// The rows of the items `ids`, checked (``RowCheck``), whatever their change tags.
    func records(ids: [String], on connection: PostgresConnection) async throws -> Read {
        var read = Read()
        guard !ids.isEmpty else { return read }
        let rows = try await connection.query(
            """
            SELECT record_id, change_tag, position, archive, stamp_milliseconds, stamp_counter, stamp_replica,
                field_stamps
            FROM keepsake_items WHERE store = \(store) AND record_id = ANY(\(ids)::text[])
            """, logger: logger)
        try await take(rows, into: &read)
        return read
    }

    /// Checks each of `rows` into `read`, taken or refused; returns how many there were.
    @discardableResult
    private func take(_ rows: PostgresRowSequence, into read: inout Read) async throws -> Int {
        var count = 0
        let check = RowCheck()
        for try await (id, changeTag, position, archive, milliseconds, counter, replica, fields) in rows.decode(
            (String, Int64, Double, ByteBuffer?, Int64, Int64, String, String?).self)
        {
            let stamp = HybridTimestamp(milliseconds: milliseconds, counter: counter, replica: replica)
            switch check.itemRecord(
                id: id, changeTag: changeTag, position: position, archive: archive, stamp: stamp, fieldStamps: fields)
            {
            case .success(let record):
                if let archive = record.archive, let reason = itemProblem(id, archive) {
                    read.rejected.append(RejectedRow(source: .items, key: id, version: changeTag, reason: reason))
                } else {
                    read.records.append(record)
                }
            case .failure(let problem):
                read.rejected.append(RejectedRow(source: .items, key: id, version: changeTag, reason: problem.reason))
            }
            read.lastTag = max(read.lastTag, changeTag)
            read.pageEnd = changeTag
            count += 1
        }
        return count
    }

    /// Forgets the deletions stamped before `cutoff` (milliseconds since 1970), with the
    /// photos named by their ids written before them, and moves the horizon past them.
    /// A photo written after the deletion (a later version: versions and change tags
    /// count on one sequence) is kept. Called holding the store's lock.
    func compact(deletedBefore cutoff: Int64, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            WITH forgotten AS (
                DELETE FROM keepsake_items WHERE store = \(store) AND archive IS NULL AND stamp_milliseconds < \(cutoff)
                RETURNING record_id, change_tag),
            photos AS (
                DELETE FROM keepsake_blobs photo USING forgotten
                WHERE photo.store = \(store) AND photo.key = forgotten.record_id AND photo.version < forgotten.change_tag
                RETURNING photo.key, photo.version),
            chunks AS (
                DELETE FROM keepsake_blob_chunks chunk USING forgotten
                WHERE chunk.store = \(store) AND chunk.key = forgotten.record_id AND chunk.version < forgotten.change_tag
                RETURNING 1)
            INSERT INTO keepsake_items_horizon (store, change_tag)
            SELECT \(store), max(change_tag) FROM forgotten HAVING count(*) > 0
            ON CONFLICT (store) DO UPDATE SET change_tag = greatest(keepsake_items_horizon.change_tag, excluded.change_tag)
            """, logger: logger)
    }

    /// Moves `rejected` to the quarantine, on a connection of its own.
    func quarantine(_ rejected: [RejectedRow]) async {
        guard !rejected.isEmpty else { return }
        let (quarantine, logger) = (quarantine, logger)
        do {
            try await database.withConnection { connection in
                await quarantine.move(rejected, on: connection, logger: logger)
            }
        } catch {
            // No connection: the rows stay skipped here, and the next reader moves them.
            quarantine.reporter.error("cannot quarantine \(rejected.count) rows: \(String(reflecting: error))")
        }
    }

    /// Writes `records` (their change tags are ignored) with new change tags, which it
    /// returns by record id, and tells the listeners.
    func write(_ records: [SharedItemRecord], on connection: PostgresConnection) async throws -> [String: Int64] {
        guard !records.isEmpty else { return [:] }
        let ids = records.map(\.id)
        let positions = records.map(\.position)
        let deleted = records.map(\.isDeleted)
        let archives = records.map { ByteBuffer(bytes: $0.archive ?? Data()) }
        let milliseconds = records.map(\.stamps.record.milliseconds)
        let counters = records.map(\.stamps.record.counter)
        let replicas = records.map(\.stamps.record.replica)
        // Arrays cannot hold NULL here: an empty text stands for no field stamps.
        let fields = records.map { $0.stamps.encodedFields() ?? "" }
        let rows = try await connection.query(
            """
            INSERT INTO keepsake_items (store, record_id, change_tag, position, archive, stamp_milliseconds,
                stamp_counter, stamp_replica, field_stamps)
            SELECT \(store), id, nextval('keepsake_item_tags'), position, CASE WHEN deleted THEN NULL ELSE archive END,
                milliseconds, counter, replica, NULLIF(fields, '')
            FROM unnest(\(ids)::text[], \(positions)::float8[], \(deleted)::bool[], \(archives)::bytea[],
                \(milliseconds)::int8[], \(counters)::int8[], \(replicas)::text[], \(fields)::text[])
                WITH ORDINALITY AS t(id, position, deleted, archive, milliseconds, counter, replica, fields, ordinal)
            ORDER BY ordinal
            ON CONFLICT (store, record_id) DO UPDATE SET change_tag = EXCLUDED.change_tag,
                position = EXCLUDED.position, archive = EXCLUDED.archive,
                stamp_milliseconds = EXCLUDED.stamp_milliseconds, stamp_counter = EXCLUDED.stamp_counter,
                stamp_replica = EXCLUDED.stamp_replica, field_stamps = EXCLUDED.field_stamps
            RETURNING record_id, change_tag
            """, logger: logger)
        var tags: [String: Int64] = [:]
        for try await (id, tag) in rows.decode((String, Int64).self) { tags[id] = tag }
        try await connection.query("SELECT pg_notify(\(Self.channel), \(store))", logger: logger)
        return tags
    }

    /// Runs until cancelled, calling `changed` whenever another save of the store may
    /// have been committed (and once when it starts listening, for what came before).
    func watch(_ changed: @escaping @Sendable () -> Void) async {
        await database.watch(channel: Self.channel, for: store, logger: logger, changed)
    }
}
