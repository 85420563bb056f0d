import Logging
import PostgresNIO

/// A lock of one store's, held until the transaction ends: a row of `keepsake_locks`,
/// locked by an upsert, which waits while another transaction holds it.
///
/// Why a row rather than an advisory lock: advisory locks are one namespace for every
/// role of the database, so another app's role could take this store's and keep it,
/// and every write of the store would wait on it. A row is under row-level security:
/// a role granted another store (``CloudTenants``) can neither see nor lock it.
enum StoreLock {
    /// Takes the lock `name` of `store` in `connection`'s transaction.
    static func take(_ name: String, of store: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO keepsake_locks (store, name) VALUES (\(store), \(name))
            ON CONFLICT (store, name) DO UPDATE SET name = EXCLUDED.name
            """, logger: logger)
    }
}
