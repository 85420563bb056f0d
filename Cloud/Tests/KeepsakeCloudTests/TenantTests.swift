import Foundation
import Locking
import Logging
import PostgresNIO
import PropertyList
import TestSupport
import Testing

@testable import KeepsakeCloud

/// Apps granted roles of their own by ``CloudTenants``: PostgreSQL keeps each to its
/// store's rows, whatever its client sends.
@Suite(
    .enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage),
    .enabled(if: TestDatabaseScript.path != nil, "needs KEEPSAKE_TEST_DATABASE_SCRIPT to connect with psql"),
    .serialized)
struct TenantTests {
    let storeA = "com.example.tenant-a-\(UUID().uuidString.prefix(8).lowercased())"
    let storeB = "com.example.tenant-b-\(UUID().uuidString.prefix(8).lowercased())"

    let clients = RunningClients()

    /// A client of `grant`'s role, running until the test ends.
    func client(of grant: TenantGrant) throws -> CloudDatabase {
        let admin = try #require(TestDatabase.url)
        let url = try #require(grant.url(replacingUserOf: admin))
        let database = try CloudDatabase(url: url)
        clients.run(database)
        return database
    }

    /// How many rows of `store` each shared table holds, as the tables' owner sees them.
    func rowCounts(of store: String) throws -> String {
        let counts = CloudTenants.sharedTables.map { "(SELECT count(*) FROM \($0) WHERE store = '\(store)')" }
        return try TestDatabaseScript.sql("SELECT \(counts.joined(separator: ", "))").outputText
    }

    @Test(
        "A's role runs A's stores owning nothing; B's role, in psql and through the stores, can neither read nor change A's rows"
    )
    func eachRoleSeesOnlyItsRows() async throws {
        let admin = CloudTenants(database: try #require(TestDatabase.shared))
        let (grantA, grantB) = (try await admin.grant(store: storeA), try await admin.grant(store: storeB))
        let (a, b) = (try client(of: grantA), try client(of: grantB))

        // A's own role: a setting, an item, a photo, and a poison row quarantined.
        let settingsA = PostgresKeyValueSync(database: a, store: storeA)
        let clock = HybridLogicalClock(replica: "a")
        try await settingsA.push([KeyValueChange(key: "sortOrder", value: .string("name"), timestamp: clock.tick())])
        let itemsA = PostgresItemStoreBackend<Gadget>(database: a, store: storeA)
        let bike = Gadget("Bike", value: 300, id: "bike")
        try await itemsA.save([bike])
        #expect(try await itemsA.load() == [bike])
        let photosA = PostgresBlobStore(database: a, store: storeA)
        try await photosA.set(Data([1, 2, 3]), forKey: "bike")
        #expect(try await photosA.data(forKey: "bike", maxBytes: 10)?.data == Data([1, 2, 3]))
        let raw = DatabaseClient(try #require(TestDatabase.shared), timeout: .seconds(10))
        try await raw.withConnection { connection in
            try await PoisonRow.keyValue("poison", reason: "", milliseconds: .max).insert(storeA, connection)
        }
        #expect(try await settingsA.summary().values == ["sortOrder": .string("name")])
        #expect(try await settingsA.quarantinedRows().map(\.key) == ["poisoned"])
        let owned = try TestDatabaseScript.sql(
            "SELECT count(*) FROM pg_tables WHERE tableowner = '\(grantA.role)'"
        ).outputText
        #expect(owned == "0\n", "A's role owns no table")
        let before = try rowCounts(of: storeA)
        #expect(
            before == "1|0|1|1|1|1|3|0\n",
            "one setting, one item, one photo and its chunk, one quarantined row, the locks of the three")

        // B in psql: A's rows are not there to read, change or delete, and B cannot add to them.
        for table in CloudTenants.sharedTables {
            let probe = try TestDatabaseScript.sql(
                """
                SELECT count(*) FROM \(table) WHERE store = '\(storeA)';
                WITH changed AS (UPDATE \(table) SET store = '\(storeB)' WHERE store = '\(storeA)' RETURNING 1)
                SELECT count(*) FROM changed;
                WITH deleted AS (DELETE FROM \(table) WHERE store = '\(storeA)' RETURNING 1)
                SELECT count(*) FROM deleted;
                """, as: grantB.role)
            #expect(probe.status == .exited(0), "\(probe.errorText)")
            #expect(probe.outputText == "0\n0\n0\n", "\(table): B saw or changed A's rows: \(probe.outputText)")
        }
        let insert = try TestDatabaseScript.sql(
            """
            INSERT INTO keepsake_kv (store, key, value, milliseconds, counter, replica)
            VALUES ('\(storeA)', 'sortOrder', NULL, 1, 0, 'b')
            """, as: grantB.role)
        #expect(insert.status != .exited(0))
        #expect(insert.errorText.contains("row-level security"), "\(insert.errorText)")
        let lock = try TestDatabaseScript.sql(
            "BEGIN; INSERT INTO keepsake_locks (store, name) VALUES ('\(storeA)', 'kv'); COMMIT", as: grantB.role)
        #expect(lock.errorText.contains("row-level security"), "B cannot hold A's lock: \(lock.errorText)")

        // B through the stores, naming A's store.
        let settingsAsB = PostgresKeyValueSync(database: b, store: storeA)
        #expect(try await settingsAsB.summary().values.isEmpty)
        await #expect(throws: (any Error).self) {
            try await settingsAsB.push([KeyValueChange(key: "sortOrder", value: nil, timestamp: clock.tick())])
        }
        #expect(try await PostgresItemStoreBackend<Gadget>(database: b, store: storeA).load().isEmpty)
        #expect(try await PostgresBlobStore(database: b, store: storeA).data(forKey: "bike", maxBytes: 10) == nil)
        #expect(try rowCounts(of: storeA) == before, "A's rows are as A left them")
        #expect(try await itemsA.load() == [bike])
    }

    @Test("Granting again changes nothing: no new password, the same policies, A's role still logs in")
    func grantingAgainChangesNothing() async throws {
        let admin = CloudTenants(database: try #require(TestDatabase.shared))
        let first = try await admin.grant(store: storeA)
        #expect(first.password?.count == 64)
        let state = """
            SELECT rolpassword FROM pg_authid WHERE rolname = '\(first.role)';
            SELECT count(*) FROM pg_policies WHERE policyname = '\(first.role)';
            """
        let before = try TestDatabaseScript.sql(state).outputText
        let second = try await admin.grant(store: storeA)
        #expect(second.role == first.role && second.password == nil)
        #expect(try TestDatabaseScript.sql(state).outputText == before)
        #expect(before.hasSuffix("\n\(CloudTenants.sharedTables.count)\n"), "a policy on each shared table: \(before)")
        #expect(
            second.url(replacingUserOf: "postgres://admin:secret@db.example.com:5433/app")
                == "postgres://\(first.role):***@db.example.com:5433/app")
        let settings = PostgresKeyValueSync(database: try client(of: first), store: storeA)
        #expect(try await settings.summary().values.isEmpty)
    }

    @Test(
        "A role granted before the schema had versions (it may not read them) runs on the tables as they are; granting it again lets it read them"
    )
    func aRoleGrantedBeforeVersionsStillRuns() async throws {
        let admin = CloudTenants(database: try #require(TestDatabase.shared))
        let grant = try await admin.grant(store: storeA)
        let canRead = "SELECT has_table_privilege('\(grant.role)', 'keepsake_schema_versions', 'SELECT')"
        _ = try TestDatabaseScript.sql("REVOKE SELECT ON keepsake_schema_versions FROM \"\(grant.role)\"")
        #expect(try TestDatabaseScript.sql(canRead).outputText == "f\n")
        let items = PostgresItemStoreBackend<Gadget>(database: try client(of: grant), store: storeA)
        let bike = Gadget("Bike", value: 300, id: "bike")
        try await items.save([bike])
        #expect(try await items.load() == [bike])
        _ = try await admin.grant(store: storeA)
        #expect(try TestDatabaseScript.sql(canRead).outputText == "t\n")
    }

    @Test(
        "A role at its connection limit is refused with the server's reason, not a timeout, and another tenant's store still works"
    )
    func aRoleAtItsLimitIsRefused() async throws {
        let admin = CloudTenants(database: try #require(TestDatabase.shared))
        let grantA = try await admin.grant(store: storeA, connectionLimit: 2)
        let grantB = try await admin.grant(store: storeB)
        let limits =
            "SELECT rolconnlimit FROM pg_roles WHERE rolname IN ('\(grantA.role)', '\(grantB.role)') ORDER BY rolname"
        #expect(try TestDatabaseScript.sql(limits).outputText == "2\n\(CloudTenants.defaultConnectionLimit)\n")

        // Two connections of A's role held elsewhere: A has none left.
        let adminURL = try #require(TestDatabase.url)
        let url = try #require(grantA.url(replacingUserOf: adminURL))
        let pool = try #require(PostgresClient.Configuration(url: url))
        let configuration = PostgresConnection.Configuration(
            host: try #require(pool.host), port: pool.port ?? 5432, username: pool.username, password: pool.password,
            database: pool.database, tls: .disable)
        var held: [PostgresConnection] = []
        for id in 0..<2 {
            held.append(
                try await PostgresConnection.connect(
                    configuration: configuration, id: id, logger: Logger(label: "held")))
        }
        let a = DatabaseClient(try client(of: grantA), timeout: .seconds(2))
        let start = ContinuousClock.now
        await #expect {
            try await a.withConnection { connection in
                try await connection.query("SELECT 1", logger: Logger(label: "a"))
            }
        } throws: { error in
            guard let error = error as? CloudDatabaseError, error.code == .refused else { return false }
            return error.message.contains("too many connections for role") && error.message.contains("53300")
        }
        #expect(ContinuousClock.now - start < .seconds(3), "the reason came at the 2 s deadline, asked then")

        let settingsB = PostgresKeyValueSync(database: try client(of: grantB), store: storeB)
        let clock = HybridLogicalClock(replica: "b")
        try await settingsB.push([KeyValueChange(key: "k", value: .integer(1), timestamp: clock.tick())])
        #expect(try await settingsB.summary().values == ["k": .integer(1)])
        for connection in held { try await connection.close() }
        // Granting again sets the limit given, and none with nil.
        _ = try await admin.grant(store: storeA, connectionLimit: nil)
        #expect(try TestDatabaseScript.sql(limits).outputText.hasPrefix("-1\n"))
    }

    @Test("A store name too long for a role name gets its MD5 instead, and works")
    func longStoreNamesGetAHashedRole() async throws {
        let store = "com.example." + String(repeating: "long", count: 20)
        let grant = try await CloudTenants(database: try #require(TestDatabase.shared)).grant(store: store)
        #expect(grant.role.hasPrefix("keepsake_") && grant.role.utf8.count == 41, "\(grant.role)")
        let settings = PostgresKeyValueSync(database: try client(of: grant), store: store)
        let clock = HybridLogicalClock(replica: "long")
        try await settings.push([KeyValueChange(key: "k", value: .integer(1), timestamp: clock.tick())])
        #expect(try await settings.summary().values == ["k": .integer(1)])
    }
}

/// The clients a test started, each stopped when the test ends: one left running would
/// hold its connections until the process exits, where LeakSanitizer reports them.
final class RunningClients: Sendable {
    private let runs = Locked<[Task<Void, any Error>]>([])

    func run(_ database: CloudDatabase) {
        runs.withLock { $0.append(Task.detached { try await database.run() }) }
    }

    deinit {
        for run in runs.withLock({ $0 }) { run.cancel() }
    }
}
