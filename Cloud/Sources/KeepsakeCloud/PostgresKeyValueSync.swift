import Foundation
import Logging
import PostgresNIO
import PropertyList

/// The shared log of a ubiquitous store in PostgreSQL: one table of changes for every
/// store, a change per row, numbered in the order they were committed, and a
/// `LISTEN`/`NOTIFY` channel that tells the replicas which store changed (its name
/// only, which every tenant may see: a replica reads the changes themselves from its
/// last position, through its own role, so one that was away misses nothing).
///
/// ```swift
/// let database = try CloudDatabase(url: "postgres://me@127.0.0.1:5432/app")
/// async let client: Void = database.run()
/// await store.run(with: PostgresKeyValueSync(database: database, store: "com.example.Homepwner"))
/// ```
///
/// The log keeps only the latest change of each key: a push deletes the rows its
/// changes replace, which no replica needs, since only the latest change of a key
/// counts (``KeyValueReplay``). Removals are kept for ``tombstoneRetention``; a replica
/// that was away longer reads the whole store instead, as Apple's initial sync.
///
/// The ``CloudDatabase`` must be running for as long as the service is used. Each
/// exchange with the database has to end within a timeout (10 s unless told
/// otherwise), or it fails and the next one goes through a new client.
public final class PostgresKeyValueSync: KeyValueSyncService {
    /// The store's name; many stores share one table.
    public let store: String
    /// How long the log keeps a removal; a replica away for longer re-reads the whole store.
    public let tombstoneRetention: Duration
    let database: DatabaseClient
    let logger: Logger
    let quarantine: RowQuarantine
    static let channel = "keepsake_kv"

    /// - Parameters:
    ///   - timeout: how long one exchange with the database may take.
    ///   - tombstoneRetention: how long the log keeps a removal.
    public init(
        database: CloudDatabase, store: String, timeout: Duration = .seconds(10),
        tombstoneRetention: Duration = .seconds(30 * 86_400)
    ) {
        self.store = store
        self.tombstoneRetention = tombstoneRetention
        self.database = DatabaseClient(database, timeout: timeout)
        quarantine = RowQuarantine(store: store)
        var logger = Logger(label: "keepsake.cloud")
        logger.logLevel = .critical
        self.logger = logger
    }

    /// Brings the tables up to date if they are not, once per service.
    public func prepare() async throws {
        try CloudDatabaseError.checkStoreName(store)
        try await schema.migrate(on: database, logger: logger)
    }

    private let schema = DatabaseSchema()

    /// How many changes one transaction of a push writes: each transaction must end
    /// within the timeout, however many changes a replica queued while away. A push
    /// that fails part way is pushed again whole; the changes already written are
    /// skipped (`ON CONFLICT DO NOTHING`).
    static let pushBatch = 200

    public func push(_ changes: [KeyValueChange]) async throws {
        guard !changes.isEmpty else { return }
        try await prepare()
        for start in stride(from: 0, to: changes.count, by: Self.pushBatch) {
            try await push(batch: Array(changes[start..<min(start + Self.pushBatch, changes.count)]))
        }
    }

    private func push(batch changes: [KeyValueChange]) async throws {
        let store = store
        let logger = logger
        let cutoff = Self.cutoff(tombstoneRetention)
        try await database.withTransaction(logger: logger) { connection in
            // One writer per store at a time: positions are then committed in order,
            // and a reader that has seen position n has seen every position before it.
            try await StoreLock.take("kv", of: store, on: connection, logger: logger)
            for change in changes { try await Self.insert(change, store: store, on: connection, logger: logger) }
            try await Self.compact(
                store: store, keys: changes.map(\.key), tombstonesBefore: cutoff, on: connection, logger: logger)
            try await connection.query("SELECT pg_notify(\(Self.channel), \(store))", logger: logger)
        }
    }

    /// The time before which removals are forgotten, in milliseconds since 1970.
    static func cutoff(_ retention: Duration) -> Int64 {
        HybridLogicalClock.wallClock() - retention.wholeMilliseconds
    }

    static func insert(
        _ change: KeyValueChange, store: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let value = try change.value.map { try ByteBuffer(bytes: PropertyListWriter.binary.write($0)) }
        let stamp = change.timestamp
        try await connection.query(
            """
            INSERT INTO keepsake_kv (store, key, value, milliseconds, counter, replica)
            VALUES (\(store), \(change.key), \(value), \(stamp.milliseconds), \(stamp.counter), \(stamp.replica))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Deletes the rows of `keys` that a later change of the same key replaces, and
    /// removals older than `cutoff` (milliseconds since 1970), moving the horizon past
    /// them. Called holding the store's lock.
    static func compact(
        store: String, keys: [String], tombstonesBefore cutoff: Int64, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        try await connection.query(
            """
            DELETE FROM keepsake_kv old WHERE old.store = \(store) AND old.key = ANY(\(Array(Set(keys))))
            AND EXISTS (
                SELECT 1 FROM keepsake_kv new WHERE new.store = old.store AND new.key = old.key
                AND (new.milliseconds, new.counter, new.replica COLLATE "C")
                    > (old.milliseconds, old.counter, old.replica COLLATE "C"))
            """, logger: logger)
        try await connection.query(
            """
            WITH forgotten AS (
                DELETE FROM keepsake_kv WHERE store = \(store) AND value IS NULL AND milliseconds < \(cutoff)
                RETURNING position)
            INSERT INTO keepsake_kv_horizon (store, position)
            SELECT \(store), max(position) FROM forgotten HAVING count(*) > 0
            ON CONFLICT (store) DO UPDATE SET position = greatest(keepsake_kv_horizon.position, excluded.position)
            """, logger: logger)
    }

    /// The changes after `position`. A row that fails its checks (``RowCheck``) is
    /// skipped, and moved to the quarantine.
    public func changes(after position: Int64) async throws -> KeyValueBatch {
        try await prepare()
        let (store, logger, quarantine) = (store, logger, quarantine)
        return try await database.withConnection { connection in
            let horizon = try await connection.query(
                "SELECT position FROM keepsake_kv_horizon WHERE store = \(store)", logger: logger
            ).collect().first.map { try $0.decode(Int64.self) }
            let wholeStore = horizon.map { position < $0 } ?? false
            // A whole store is read at once: it holds one row per key, and removals of
            // the retention period.
            let rows = try await connection.query(
                wholeStore
                    ? """
                    SELECT position, key, value, milliseconds, counter, replica FROM keepsake_kv
                    WHERE store = \(store) ORDER BY position
                    """
                    : """
                    SELECT position, key, value, milliseconds, counter, replica FROM keepsake_kv
                    WHERE store = \(store) AND position > \(position) ORDER BY position LIMIT 1000
                    """, logger: logger)
            var changes: [KeyValueChange] = []
            var rejected: [RejectedRow] = []
            var last = wholeStore ? max(position, horizon ?? 0) : position
            let check = RowCheck()
            for try await (row, key, value, milliseconds, counter, replica) in rows.decode(
                (Int64, String, ByteBuffer?, Int64, Int64, String).self)
            {
                let stamp = HybridTimestamp(milliseconds: milliseconds, counter: counter, replica: replica)
                switch check.keyValueChange(key: key, value: value, stamp: stamp) {
                case .success(let change): changes.append(change)
                case .failure(let problem):
                    rejected.append(RejectedRow(source: .keyValue, key: key, version: row, reason: problem.reason))
                }
                last = max(last, row)
            }
            await quarantine.move(rejected, on: connection, logger: logger)
            return KeyValueBatch(changes: changes, position: last, isWholeStore: wholeStore)
        }
    }

    public func watch(_ changed: @escaping @Sendable () -> Void) async {
        await database.watch(channel: Self.channel, for: store, logger: logger, changed)
    }
}
