import AppStores
import Foundation
import KeyedArchive
import Logging
import PostgresNIO
import Testing

@testable import KeepsakeCloud

/// A database as 0.2.0 made it, with rows in it, brought up to date by current
/// processes while a process of 0.2.0 goes on reading and writing beside them.
@Suite(.enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage), .serialized)
struct SchemaMigrationTests {
    /// The statements 0.2.0 ran on first use (its three stores' `DatabaseSchema` lists),
    /// as it shipped them.
    static let tablesOf020 = [
        """
        CREATE TABLE IF NOT EXISTS keepsake_kv (
            position bigserial PRIMARY KEY, store text NOT NULL, key text NOT NULL, value bytea,
            milliseconds bigint NOT NULL, counter bigint NOT NULL, replica text NOT NULL,
            UNIQUE (store, milliseconds, counter, replica))
        """,
        "CREATE INDEX IF NOT EXISTS keepsake_kv_store_key ON keepsake_kv (store, key)",
        "CREATE TABLE IF NOT EXISTS keepsake_kv_horizon (store text PRIMARY KEY, position bigint NOT NULL)",
        "CREATE SEQUENCE IF NOT EXISTS keepsake_item_tags",
        """
        CREATE TABLE IF NOT EXISTS keepsake_items (
            store text NOT NULL, record_id text NOT NULL, change_tag bigint NOT NULL,
            position double precision NOT NULL, archive bytea, stamp_milliseconds bigint NOT NULL,
            stamp_counter bigint NOT NULL, stamp_replica text NOT NULL, field_stamps text,
            PRIMARY KEY (store, record_id))
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
    ]

    /// A database of its own on the test server, dropped by ``drop()``.
    struct ScratchDatabase {
        let name = "keepsake_upgrade_\(UUID().uuidString.prefix(8).lowercased())"
        let url: String
        let database: CloudDatabase
        let client: DatabaseClient
        let running: Task<Void, Never>

        init() async throws {
            let url = try #require(TestDatabase.url)
            let server = DatabaseClient(try #require(TestDatabase.shared), timeout: .seconds(30))
            try await server.withConnection { [name] connection in
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Self.logger)
            }
            let base = try #require(url.range(of: "/", options: .backwards))
            self.url = String(url[..<base.upperBound]) + name
            database = try CloudDatabase(url: self.url)
            client = DatabaseClient(database, timeout: .seconds(30))
            let database = database
            running = Task.detached { try? await database.run() }
        }

        static let logger = Logger(label: "keepsake.test.migration")

        func run(_ statements: [String]) async throws {
            try await client.withConnection { connection in
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Self.logger)
                }
            }
        }

        func drop() async throws {
            running.cancel()
            await running.value
            let server = DatabaseClient(try #require(TestDatabase.shared), timeout: .seconds(30))
            try await server.withConnection { [name] connection in
                try await connection.query(
                    PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Self.logger)
            }
        }
    }

    /// A write as 0.2.0's `SharedItemTable.write` made one: a new change tag from the
    /// sequence, the whole record stamped once, under 0.2.0's advisory lock.
    static func writeAs020(_ gadget: Gadget, position: Double, store: String, on client: DatabaseClient) async throws {
        let archive = ByteBuffer(bytes: try KeyedArchiver.archivedData(withRootObject: gadget))
        let milliseconds = HybridLogicalClock.wallClock()
        try await client.withTransaction(logger: ScratchDatabase.logger) { connection in
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtext('items:' || \(store)))", logger: ScratchDatabase.logger)
            try await connection.query(
                """
                INSERT INTO keepsake_items (store, record_id, change_tag, position, archive, stamp_milliseconds,
                    stamp_counter, stamp_replica, field_stamps)
                VALUES (\(store), \(gadget.id), nextval('keepsake_item_tags'), \(position), \(archive),
                    \(milliseconds), 0, 'v0.2.0', NULL)
                ON CONFLICT (store, record_id) DO UPDATE SET change_tag = EXCLUDED.change_tag,
                    position = EXCLUDED.position, archive = EXCLUDED.archive,
                    stamp_milliseconds = EXCLUDED.stamp_milliseconds, stamp_counter = EXCLUDED.stamp_counter,
                    stamp_replica = EXCLUDED.stamp_replica, field_stamps = EXCLUDED.field_stamps
                """, logger: ScratchDatabase.logger)
        }
    }

    /// A read as 0.2.0's `SharedItemTable.records(after:)` made one: each row's name,
    /// decoded as 0.2.0 decoded its columns.
    static func readAs020(store: String, on client: DatabaseClient) async throws -> [String: Gadget?] {
        try await client.withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT record_id, change_tag, position, archive, stamp_milliseconds, stamp_counter, stamp_replica,
                    field_stamps
                FROM keepsake_items WHERE store = \(store) AND change_tag > 0 ORDER BY change_tag
                """, logger: ScratchDatabase.logger)
            var items: [String: Gadget?] = [:]
            for try await (id, _, _, archive, _, _, _, fields) in rows.decode(
                (String, Int64, Double, ByteBuffer?, Int64, Int64, String, String?).self)
            {
                _ = try FieldStamps(record: HybridLogicalClock(replica: "v0.2.0").tick(), encodedFields: fields)
                items[id] = try archive.flatMap {
                    try KeyedUnarchiver.unarchivedStoredObject(ofClass: Gadget.self, from: Data($0.readableBytesView))
                }
            }
            return items
        }
    }

    @Test(
        "A tenant's role on tables made before versions were recorded runs on them as they are: it may not migrate, and does not fail for it"
    )
    func aTenantDoesNotMigrate() async throws {
        let scratch = try await ScratchDatabase()
        do {
            let store = "com.example.tenant-\(UUID().uuidString.prefix(8).lowercased())"
            let grant = try await CloudTenants(database: scratch.database).grant(store: store)
            try await scratch.run(["DROP TABLE keepsake_schema_versions"])
            let tenant = try CloudDatabase(url: try #require(grant.url(replacingUserOf: scratch.url)))
            let running = Task.detached { try? await tenant.run() }
            defer { running.cancel() }
            let items = PostgresItemStoreBackend<Gadget>(database: tenant, store: store)
            let bike = Gadget("Bike", value: 300, id: "bike")
            try await items.save([bike])
            #expect(try await items.load() == [bike])
            let versions = try await scratch.client.withConnection { connection in
                try await connection.query(
                    "SELECT to_regclass('keepsake_schema_versions') IS NULL", logger: ScratchDatabase.logger
                ).collect().first?.decode(Bool.self)
            }
            #expect(versions == true, "the tenant made nothing")
            try await scratch.run(["DROP OWNED BY \"\(grant.role)\"", "DROP ROLE \"\(grant.role)\""])
        } catch {
            try await scratch.drop()
            throw error
        }
        try await scratch.drop()
    }

    @Test(
        "A database 0.2.0 made, with rows: two processes starting at once apply each migration once, in order; they read 0.2.0's rows, and 0.2.0 reads and writes beside them"
    )
    func upgradeFrom020() async throws {
        let scratch = try await ScratchDatabase()
        do {
            try await scratch.run(Self.tablesOf020)
            let store = "com.example.upgrade"
            let seed = [Gadget("Bike", value: 300, id: "bike"), Gadget("Lamp", value: 20, id: "lamp")]
            for (index, gadget) in seed.enumerated() {
                try await Self.writeAs020(gadget, position: Double(index + 1), store: store, on: scratch.client)
            }

            // Two current processes start at once: each migrates, under the lock.
            let first = PostgresItemStoreBackend<Gadget>(
                database: scratch.database, store: store, mergePolicy: .fieldLastWriterWins, replica: "new-1")
            let second = PostgresItemStoreBackend<Gadget>(
                database: scratch.database, store: store, mergePolicy: .fieldLastWriterWins, replica: "new-2")
            async let loadedByFirst = first.load()
            async let loadedBySecond = second.load()
            let (one, two) = try await (loadedByFirst, loadedBySecond)
            #expect(one == seed && two == seed, "the rows 0.2.0 wrote are read, in order")
            let versions = try await scratch.client.withConnection { connection in
                try await connection.query(
                    "SELECT version FROM keepsake_schema_versions ORDER BY version", logger: ScratchDatabase.logger
                ).collect().map { try $0.decode(Int.self) }
            }
            #expect(versions == DatabaseSchema.migrations.map(\.version), "each migration once: \(versions)")
            let added = try await scratch.client.withConnection { connection in
                try await connection.query(
                    """
                    SELECT count(*) FROM unnest(ARRAY['keepsake_quarantine', 'keepsake_locks',
                        'keepsake_items_horizon', 'keepsake_items_deletions']) AS name
                    WHERE to_regclass(name) IS NOT NULL
                    """, logger: ScratchDatabase.logger
                ).collect().first?.decode(Int.self)
            }
            #expect(added == 4, "what 0.2.0 lacked is made")

            // 0.2.0 writes beside them; the current ones read its row, and write theirs.
            try await Self.writeAs020(
                Gadget("Kettle", value: 5, id: "kettle"), position: 3, store: store, on: scratch.client)
            var items = try await first.load()
            #expect(items.map(\.id) == ["bike", "lamp", "kettle"])
            items[0].value = 350
            try await first.save(items)
            try await Self.writeAs020(
                Gadget("Lamp", value: 25, id: "lamp"), position: 2, store: store, on: scratch.client)
            #expect(try await second.load().map(\.value) == [350, 25, 5], "each side's write reaches the other")
            let readByOld = try await Self.readAs020(store: store, on: scratch.client)
            #expect(readByOld["bike"]??.value == 350 && readByOld["lamp"]??.value == 25 && readByOld.count == 3)

            // A process started later finds the schema current and changes nothing.
            let later = PostgresItemStoreBackend<Gadget>(database: scratch.database, store: store, replica: "new-3")
            #expect(try await later.load().count == 3)
            let count = try await scratch.client.withConnection { connection in
                try await connection.query(
                    "SELECT count(*) FROM keepsake_schema_versions", logger: ScratchDatabase.logger
                )
                .collect().first?.decode(Int.self)
            }
            #expect(count == DatabaseSchema.migrations.count)
        } catch {
            try await scratch.drop()
            throw error
        }
        try await scratch.drop()
    }
}
