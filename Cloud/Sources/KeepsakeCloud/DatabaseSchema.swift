import Locking
import Logging
import PostgresNIO

/// Tables a cloud store creates on first use, once per store object, under one
/// advisory lock: two processes creating them at once would collide in the catalog.
final class DatabaseSchema: Sendable {
    private let statements: [String]
    private let created = Locked(false)
    /// The advisory lock held while tables are created ("ks" in ASCII).
    static let creationLock: Int64 = 0x6b73

    /// The relations the statements create: when they all exist, nothing is run.
    private let relations: [String]

    /// - Parameter statements: `CREATE … IF NOT EXISTS name` statements, constants of the code.
    init(_ statements: [String]) {
        self.statements = statements
        relations = statements.compactMap { statement in
            statement.firstMatch(of: /IF NOT EXISTS ([a-z_]+)/).map { String($0.1) }
        }
        // A statement whose relation the look cannot name would never run once the
        // others exist.
        precondition(relations.count == statements.count, "each statement must create one named relation")
    }

    /// Creates what is missing. Why a look first: `CREATE INDEX IF NOT EXISTS` takes a
    /// lock on its table even when the index exists, which waits for every open write
    /// to it, and every write after waits behind it.
    func create(on database: DatabaseClient, logger: Logger) async throws {
        guard !created.withLock({ $0 }) else { return }
        let relations = relations
        let exist = try await database.withConnection { connection in
            let rows = try await connection.query(
                "SELECT bool_and(to_regclass(name) IS NOT NULL) FROM unnest(\(relations)::text[]) AS name",
                logger: logger)
            for try await exist in rows.decode(Bool?.self) { return exist ?? false }
            return false
        }
        if exist {
            created.withLock { $0 = true }
            return
        }
        try await database.withTransaction(logger: logger) { [statements] connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.creationLock))", logger: logger)
            for statement in statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
        created.withLock { $0 = true }
    }
}
