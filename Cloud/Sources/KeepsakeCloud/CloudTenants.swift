import Foundation
import Logging
import PostgresNIO

/// Each app in a lane of its own in the shared tables: a database role per store (an
/// app's identifier), which row-level security limits to that store's rows. So
/// PostgreSQL, not the client, keeps one app from reading or changing another's keys,
/// items and photos, whatever a client of that role sends.
///
/// An administrator (the tables' owner) grants each app once; the app then runs with
/// its own URL, owning nothing and creating nothing:
///
/// ```swift
/// let admin = try CloudDatabase(url: "postgres://admin@db.example.com/keepsake")
/// let grant = try await CloudTenants(database: admin).grant(store: "com.example.Homepwner")
/// print(grant.url(replacingUserOf: "postgres://admin@db.example.com/keepsake") ?? "")
/// ```
///
/// What stays shared between tenants: the notification channels, which carry store
/// names only, and the sequences numbering rows, whose gaps show how often others write.
public struct CloudTenants: Sendable {
    let database: DatabaseClient
    private let logger: Logger

    /// - Parameter database: a client of a role that owns the tables, or may create them.
    public init(database: CloudDatabase, timeout: Duration = .seconds(30)) {
        self.database = DatabaseClient(database, timeout: timeout)
        var logger = Logger(label: "keepsake.cloud.tenants")
        logger.logLevel = .critical
        self.logger = logger
    }

    /// The tables that hold rows of many stores, each row naming its store.
    static let sharedTables = [
        "keepsake_kv", "keepsake_kv_horizon", "keepsake_items", "keepsake_blobs", "keepsake_blob_chunks",
        "keepsake_quarantine", "keepsake_locks", "keepsake_items_horizon",
    ]
    /// The sequences the stores draw from.
    static let sequences = ["keepsake_kv_position_seq", "keepsake_item_tags", "keepsake_quarantine_id_seq"]

    /// How many connections a tenant's role may hold at once unless the grant says:
    /// room for a few instances of an app (each pool opens up to 20, besides its
    /// `LISTEN`), while PostgreSQL's default of 100 leaves the others room.
    public static let defaultConnectionLimit = 32

    /// Creates every table the stores use, turns on row-level security, and gives
    /// `store` a login role whose policies admit only rows of `store`, with the rights
    /// the stores need on them and nothing more, and at most `connectionLimit`
    /// connections at once (`nil`: no limit), so that no tenant can take every
    /// connection the server has. Running it again changes nothing but the limit: an
    /// existing role keeps its password, and a policy already there is kept.
    ///
    /// Safe while apps run: each change is a statement of its own, so it waits only
    /// for the writers of its one table, and none waits for it holding another (in one
    /// transaction, turning on security table by table would deadlock with writers).
    /// Grants wait for each other. A grant that fails part way is completed by the next.
    /// - Returns: the role, with its password when it was made now.
    /// - Throws: ``CloudDatabaseError`` `.invalidStoreName`; the database's error (for
    ///   one, a role that may not create roles).
    public func grant(store: String, connectionLimit: Int? = defaultConnectionLimit) async throws -> TenantGrant {
        try CloudDatabaseError.checkStoreName(store)
        let logger = logger
        try await DatabaseSchema().migrate(on: database, logger: logger)
        return try await database.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(Self.grantLock))", logger: logger)
            do {
                let grant = try await Self.grant(
                    store: store, connectionLimit: connectionLimit, on: connection, logger: logger)
                try await connection.query("SELECT pg_advisory_unlock(\(Self.grantLock))", logger: logger)
                return grant
            } catch {
                // The lock is the session's: a connection going back to the pool must not keep it.
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.grantLock))", logger: logger)
                throw error
            }
        }
    }

    /// The advisory lock grants hold one at a time ("ktg" in ASCII): two `GRANT`s on one
    /// table at once can fail with "tuple concurrently updated".
    private static let grantLock: Int64 = 0x6b7467

    private static func grant(
        store: String, connectionLimit: Int?, on connection: PostgresConnection, logger: Logger
    ) async throws -> TenantGrant {
        for table in sharedTables {
            let secured = try await connection.query(
                "SELECT relrowsecurity FROM pg_class WHERE oid = \(table)::regclass", logger: logger
            ).collect().first?.decode(Bool.self)
            if secured != true {
                try await execute("ALTER TABLE %I ENABLE ROW LEVEL SECURITY", [table], on: connection, logger: logger)
            }
        }
        // Readable in `pg_roles`; a long name becomes its MD5, within the 63 bytes a name may take.
        let role =
            try await connection.query(
                "SELECT 'keepsake_' || CASE WHEN octet_length(\(store)) <= 54 THEN \(store) ELSE md5(\(store)) END",
                logger: logger
            ).collect().first?.decode(String.self) ?? ""
        let exists =
            try await connection.query(
                "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = \(role))", logger: logger
            ).collect().first?.decode(Bool.self) ?? false
        let password = exists ? nil : newPassword()
        if let password {
            try await execute("CREATE ROLE %I LOGIN PASSWORD %L", [role, password], on: connection, logger: logger)
        }
        try await execute(
            "ALTER ROLE %I CONNECTION LIMIT \(max(connectionLimit ?? -1, -1))", [role], on: connection, logger: logger)
        try await execute(
            "GRANT SELECT, INSERT, UPDATE, DELETE ON \(sharedTables.joined(separator: ", ")) TO %I", [role],
            on: connection, logger: logger)
        // The schema's version, read at each start: a tenant's role migrates nothing.
        try await execute("GRANT SELECT ON keepsake_schema_versions TO %I", [role], on: connection, logger: logger)
        try await execute(
            "GRANT USAGE ON SEQUENCE \(sequences.joined(separator: ", ")) TO %I", [role], on: connection, logger: logger
        )
        for table in sharedTables {
            let hasPolicy =
                try await connection.query(
                    "SELECT EXISTS (SELECT 1 FROM pg_policies WHERE tablename = \(table) AND policyname = \(role))",
                    logger: logger
                ).collect().first?.decode(Bool.self) ?? false
            guard !hasPolicy else { continue }
            try await execute(
                "CREATE POLICY %I ON %I TO %I USING (store = %L) WITH CHECK (store = %L)",
                [role, table, role, store, store], on: connection, logger: logger)
        }
        return TenantGrant(store: store, role: role, password: password)
    }

    /// Runs the statement PostgreSQL's `format()` makes of `template` and `arguments`:
    /// names (`%I`) and literals (`%L`) in DDL cannot be bound, so the server quotes them.
    private static func execute(
        _ template: String, _ arguments: [String], on connection: PostgresConnection, logger: Logger
    ) async throws {
        let statement = try await connection.query(
            "SELECT format(\(template), VARIADIC \(arguments)::text[])", logger: logger
        ).collect().first?.decode(String.self)
        guard let statement else { return }
        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
    }

    /// 32 random bytes as hex: a password for a machine to keep, not a person to type.
    private static func newPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }
            .joined()
    }
}

/// An app's role, as ``CloudTenants/grant(store:)`` left it.
public struct TenantGrant: Sendable, Hashable {
    public var store: String
    /// The role's name: `keepsake_` and the store's name, or its MD5 for a long name.
    public var role: String
    /// The role's password when the grant made the role; `nil` when it existed (its
    /// password is unchanged and cannot be read back).
    public var password: String?

    /// `url` (the administrator's) with this role and its password as the user: the
    /// URL the app runs with. The password is `***` when the role existed before.
    /// `nil` when `url` is not a `postgres://` URL.
    public func url(replacingUserOf url: String) -> String? {
        guard var components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme)
        else { return nil }
        components.user = role
        components.password = password ?? "***"
        return components.string
    }
}
