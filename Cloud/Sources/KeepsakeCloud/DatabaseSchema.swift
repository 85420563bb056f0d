import Locking
import Logging
import PostgresNIO

/// The tables every cloud store shares, brought up to date on first use: an ordered
/// list of migrations, each applied once per database and recorded in
/// `keepsake_schema_versions`, under one advisory lock, so that processes starting
/// together (an old and a new version of an app, in a rolling upgrade) apply each
/// once, in order, and none uses a table before it exists.
///
/// Migrations only add (tables, columns, indexes): a process of an older version
/// keeps working on a database a newer one migrated, and one that finds a version
/// newer than it knows uses what it knows.
final class DatabaseSchema: Sendable {
    /// One step of the schema, applied in a transaction with the record of it.
    struct Migration: Sendable {
        let version: Int
        let summary: String
        let statements: [String]
    }

    /// The advisory lock held while migrations are applied ("ks" in ASCII).
    static let migrationLock: Int64 = 0x6b73

    /// Every migration, in order of version. Each statement is one a database made
    /// before versions were recorded may already have run (`IF NOT EXISTS`).
    static let migrations = [
        Migration(
            version: 1, summary: "the tables of 0.2.0",
            statements: [
                """
                CREATE TABLE IF NOT EXISTS keepsake_kv (
                    position bigserial PRIMARY KEY,
                    store text NOT NULL,
                    key text NOT NULL,
                    value bytea,
                    milliseconds bigint NOT NULL,
                    counter bigint NOT NULL,
                    replica text NOT NULL,
                    UNIQUE (store, milliseconds, counter, replica)
                )
                """,
                "CREATE INDEX IF NOT EXISTS keepsake_kv_store_key ON keepsake_kv (store, key)",
                // The newest position whose removal the log forgot: a replica that has
                // read less than that must read the whole store.
                "CREATE TABLE IF NOT EXISTS keepsake_kv_horizon (store text PRIMARY KEY, position bigint NOT NULL)",
                "CREATE SEQUENCE IF NOT EXISTS keepsake_item_tags",
                """
                CREATE TABLE IF NOT EXISTS keepsake_items (
                    store text NOT NULL,
                    record_id text NOT NULL,
                    change_tag bigint NOT NULL,
                    position double precision NOT NULL,
                    archive bytea,
                    stamp_milliseconds bigint NOT NULL,
                    stamp_counter bigint NOT NULL,
                    stamp_replica text NOT NULL,
                    field_stamps text,
                    PRIMARY KEY (store, record_id)
                )
                """,
                "CREATE INDEX IF NOT EXISTS keepsake_items_changes ON keepsake_items (store, change_tag)",
                """
                CREATE TABLE IF NOT EXISTS keepsake_blobs (
                    store text NOT NULL, key text NOT NULL, version bigint NOT NULL, size bigint NOT NULL,
                    PRIMARY KEY (store, key))
                """,
                """
                CREATE TABLE IF NOT EXISTS keepsake_blob_chunks (
                    store text NOT NULL, key text NOT NULL, version bigint NOT NULL, chunk integer NOT NULL,
                    bytes bytea NOT NULL, PRIMARY KEY (store, key, version, chunk))
                """,
            ]),
        Migration(
            version: 2, summary: "the row quarantine, store locks, and forgotten deletions",
            statements: [
                // Rows that failed their checks (``RowQuarantine``).
                """
                CREATE TABLE IF NOT EXISTS keepsake_quarantine (
                    id bigserial PRIMARY KEY,
                    store text NOT NULL,
                    source text NOT NULL,
                    key text NOT NULL,
                    reason text NOT NULL,
                    row_data jsonb NOT NULL,
                    quarantined_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                // ``StoreLock``.
                """
                CREATE TABLE IF NOT EXISTS keepsake_locks (
                    store text NOT NULL, name text NOT NULL, PRIMARY KEY (store, name))
                """,
                // What every save's compaction looks for, without reading the live rows.
                """
                CREATE INDEX IF NOT EXISTS keepsake_items_deletions ON keepsake_items (store, stamp_milliseconds)
                WHERE archive IS NULL
                """,
                // The newest change tag of a deletion the table forgot: a replica that has
                // read less than that reads the whole store.
                """
                CREATE TABLE IF NOT EXISTS keepsake_items_horizon (
                    store text PRIMARY KEY, change_tag bigint NOT NULL)
                """,
            ]),
        Migration(
            version: 3, summary: "a bounded quarantine",
            statements: [
                "CREATE INDEX IF NOT EXISTS keepsake_quarantine_store ON keepsake_quarantine (store, id)",
                // In the database, not the client: a tenant may insert into its quarantine
                // directly. A row past the size keeps its size instead of its data; each
                // insertion removes the store's rows past the count and the retention.
                // Run as the inserting role, so row-level security keeps the removal to
                // the row's own store.
                """
                CREATE OR REPLACE FUNCTION keepsake_quarantine_bound() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF pg_column_size(NEW.row_data) > \(RowQuarantine.maximumRowBytes) THEN
                        NEW.row_data := jsonb_build_object('truncated', true, 'bytes', pg_column_size(NEW.row_data));
                    END IF;
                    NEW.key := left(NEW.key, 1024);
                    NEW.reason := left(NEW.reason, 1024);
                    DELETE FROM keepsake_quarantine
                    WHERE store = NEW.store AND (
                        quarantined_at < now() - interval '\(RowQuarantine.retentionDays) days'
                        OR id <= (SELECT id FROM keepsake_quarantine WHERE store = NEW.store
                                  ORDER BY id DESC OFFSET \(RowQuarantine.maximumRows - 1) LIMIT 1));
                    RETURN NEW;
                END $$
                """,
                "DROP TRIGGER IF EXISTS keepsake_quarantine_bound ON keepsake_quarantine",
                """
                CREATE TRIGGER keepsake_quarantine_bound BEFORE INSERT ON keepsake_quarantine
                FOR EACH ROW EXECUTE FUNCTION keepsake_quarantine_bound()
                """,
            ]),
    ]

    static var latestVersion: Int { migrations.last?.version ?? 0 }

    private let migrated = Locked(false)

    /// Applies the migrations the database lacks. Why a look first: `CREATE INDEX IF
    /// NOT EXISTS` takes a lock on its table even when the index exists, which waits
    /// for every open write to it, and every write after waits behind it; and an app's
    /// role may read the version but create nothing (``CloudTenants``).
    func migrate(on database: DatabaseClient, logger: Logger) async throws {
        guard !migrated.withLock({ $0 }) else { return }
        let current = try await database.withConnection { connection in
            try await Self.version(on: connection, logger: logger)
        }
        // A role that may not read the version (a tenant granted before versions were
        // recorded) migrates nothing either: its administrator does, granting it again.
        if let current, current < Self.latestVersion {
            do {
                try await apply(after: current, on: database, logger: logger)
            } catch  where Self.isRefusedForPrivilege(error) {
                // A role that may not change the schema (a tenant's) runs on the tables
                // as they are; its administrator migrates them (``CloudTenants``).
            }
        }
        migrated.withLock { $0 = true }
    }

    /// Applies, under the lock, the migrations after the version the database records.
    private func apply(after current: Int, on database: DatabaseClient, logger: Logger) async throws {
        try await database.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS keepsake_schema_versions (
                    version integer PRIMARY KEY, summary text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            // Read again under the lock: another process may have migrated meanwhile.
            let current = try await Self.version(on: connection, logger: logger) ?? 0
            for migration in Self.migrations where migration.version > current {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO keepsake_schema_versions (version, summary) VALUES (\(migration.version), \(migration.summary))",
                    logger: logger)
            }
        }
    }

    /// Whether `error` is PostgreSQL's refusal for want of privilege (SQLSTATE 42501),
    /// as the transaction's closure threw it.
    private static func isRefusedForPrivilege(_ error: any Error) -> Bool {
        let cause = (error as? PostgresTransactionError)?.closureError ?? error
        return (cause as? PSQLError)?.serverInfo?[.sqlState] == "42501"
    }

    /// The latest migration the database records; 0 when it records none (a database
    /// 0.2.0 made, say, or an empty one); `nil` when this role may not read it.
    static func version(on connection: PostgresConnection, logger: Logger) async throws -> Int? {
        let access = try await connection.query(
            """
            SELECT to_regclass('keepsake_schema_versions') IS NOT NULL,
                coalesce(has_table_privilege(to_regclass('keepsake_schema_versions'), 'SELECT'), false)
            """, logger: logger
        ).collect().first?.decode((Bool, Bool).self)
        guard let (exists, readable) = access, exists else { return 0 }
        guard readable else { return nil }
        return try await connection.query(
            "SELECT coalesce(max(version), 0) FROM keepsake_schema_versions", logger: logger
        ).collect().first?.decode(Int.self) ?? 0
    }
}
