import Logging
import PostgresNIO
import Synchronization

/// Tables a cloud store creates on first use, once per store object, under one
/// advisory lock: two processes creating them at once would collide in the catalog.
final class DatabaseSchema: Sendable {
    private let statements: [String]
    private let created = Mutex(false)
    /// The advisory lock held while tables are created ("ks" in ASCII).
    private static let creationLock: Int64 = 0x6b73

    /// - Parameter statements: `CREATE … IF NOT EXISTS` statements, constants of the code.
    init(_ statements: [String]) {
        self.statements = statements
    }

    func create(on database: DatabaseClient, logger: Logger) async throws {
        guard !created.withLock({ $0 }) else { return }
        try await database.withTransaction(logger: logger) { [statements] connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.creationLock))", logger: logger)
            for statement in statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
        created.withLock { $0 = true }
    }
}
