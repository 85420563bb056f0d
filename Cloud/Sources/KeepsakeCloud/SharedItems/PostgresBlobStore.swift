import AppStores
public import Foundation
import Logging
import PostgresNIO

/// Large blobs (an item store's photos) shared through PostgreSQL, in chunks, beside a
/// ``PostgresItemStoreBackend``.
///
/// Why in the database rather than in the container: processes sharing an inventory
/// need not share a disk (a laptop and a server), and a photo must reach every one of
/// them as its item does. Why in chunks: each row stays small (256 KiB), so no message
/// or row approaches PostgreSQL's limits whatever the photo's size, and a write is one
/// transaction, so a reader sees the old blob or the new one, never a mix. Each write
/// gives the blob a new version; ``versions()`` lets a process keep a local cache and
/// drop what changed elsewhere. Writes notify the item store's watchers.
///
/// ```swift
/// let photos = PostgresBlobStore(database: database, store: "com.example.Homepwner")
/// try await photos.set(jpeg, forKey: item.itemKey)
/// if let photo = try await photos.data(forKey: item.itemKey, maxBytes: 8 << 20) { show(photo.data) }
/// ```
public final class PostgresBlobStore: Sendable {
    public let store: String
    static let chunkSize = 256 << 10
    private let database: DatabaseClient
    private let logger: Logger

    /// - Parameters:
    ///   - database: the process's client, which must be running while the store is used.
    ///   - timeout: how long one read or write may take before it fails; longer than
    ///     the other stores', for a photo of many megabytes.
    public init(database: CloudDatabase, store: String, timeout: Duration = .seconds(30)) {
        self.store = store
        var logger = Logger(label: "keepsake.cloud.blobs")
        logger.logLevel = .critical
        self.logger = logger
        self.database = DatabaseClient(database, timeout: timeout)
    }

    /// Stores `data` under `key`, replacing any previous blob, in one transaction;
    /// returns its version.
    /// - Throws: the database's error; the previous blob is then intact.
    @discardableResult
    public func set(_ data: Data, forKey key: String) async throws -> Int64 {
        try await prepare()
        return try await database.withTransaction(logger: logger) { [store, logger] connection in
            // Writes and deletions of one key wait for each other, so no chunk outlives its blob.
            try await StoreLock.take("blobs:" + key, of: store, on: connection, logger: logger)
            let rows = try await connection.query("SELECT nextval('keepsake_item_tags')", logger: logger)
            var version: Int64 = 0
            for try await tag in rows.decode(Int64.self) { version = tag }
            var chunk: Int32 = 0
            var offset = data.startIndex
            repeat {
                let end = min(offset + Self.chunkSize, data.endIndex)
                let bytes = ByteBuffer(bytes: data[offset..<end])
                try await connection.query(
                    """
                    INSERT INTO keepsake_blob_chunks (store, key, version, chunk, bytes)
                    VALUES (\(store), \(key), \(version), \(chunk), \(bytes))
                    """, logger: logger)
                chunk += 1
                offset = end
            } while offset < data.endIndex
            try await connection.query(
                """
                INSERT INTO keepsake_blobs (store, key, version, size) VALUES (\(store), \(key), \(version), \(Int64(data.count)))
                ON CONFLICT (store, key) DO UPDATE SET version = EXCLUDED.version, size = EXCLUDED.size
                """, logger: logger)
            try await connection.query(
                "DELETE FROM keepsake_blob_chunks WHERE store = \(store) AND key = \(key) AND version <> \(version)",
                logger: logger)
            try await connection.query("SELECT pg_notify(\(SharedItemTable.channel), \(store))", logger: logger)
            return version
        }
    }

    /// The blob under `key` and its version, or `nil` when there is none.
    /// - Throws: ``StoreError`` `.readFailed` when it is larger than `maxBytes` (nothing
    ///   of it is read) or the database fails.
    public func data(forKey key: String, maxBytes: Int) async throws -> (data: Data, version: Int64)? {
        try await prepare()
        // One statement, so one snapshot: the chunks of one version.
        let blob = try await database.withConnection { [store, logger] connection -> (data: Data, version: Int64)? in
            let rows = try await connection.query(
                """
                SELECT b.version, b.size, c.bytes FROM keepsake_blobs b JOIN keepsake_blob_chunks c USING (store, key, version)
                WHERE b.store = \(store) AND b.key = \(key) AND b.size <= \(Int64(maxBytes)) ORDER BY c.chunk
                """, logger: logger)
            var blob: (data: Data, version: Int64)?
            for try await (version, size, bytes) in rows.decode((Int64, Int64, ByteBuffer).self) {
                if blob == nil { blob = (Data(capacity: Int(size)), version) }
                guard blob!.data.count + bytes.readableBytes <= size else {
                    throw StoreError(.readFailed, "the blob \(key) has more bytes than its size", key: key)
                }
                blob!.data.append(contentsOf: bytes.readableBytesView)
            }
            return blob
        }
        if blob == nil, try await versions()[key] != nil {
            throw StoreError(.readFailed, "the blob \(key) is larger than \(maxBytes) bytes", key: key)
        }
        return blob
    }

    /// Removes the blob under `key`; a missing one is not an error.
    public func delete(forKey key: String) async throws {
        try await prepare()
        try await database.withTransaction(logger: logger) { [store, logger] connection in
            // Waits for a write of the key, as that write waits for this.
            try await StoreLock.take("blobs:" + key, of: store, on: connection, logger: logger)
            try await connection.query(
                "DELETE FROM keepsake_blob_chunks WHERE store = \(store) AND key = \(key)", logger: logger)
            try await connection.query(
                "DELETE FROM keepsake_blobs WHERE store = \(store) AND key = \(key)", logger: logger)
            try await connection.query("SELECT pg_notify(\(SharedItemTable.channel), \(store))", logger: logger)
        }
    }

    /// Every key with the version of its blob, which changes with each write.
    public func versions() async throws -> [String: Int64] {
        try await prepare()
        return try await database.withConnection { [store, logger] connection in
            let rows = try await connection.query(
                "SELECT key, version FROM keepsake_blobs WHERE store = \(store)", logger: logger)
            var versions: [String: Int64] = [:]
            for try await (key, version) in rows.decode((String, Int64).self) { versions[key] = version }
            return versions
        }
    }

    /// Brings the tables up to date if they are not, once per store.
    private func prepare() async throws {
        try CloudDatabaseError.checkStoreName(store)
        try await schema.migrate(on: database, logger: logger)
    }

    private let schema = DatabaseSchema()
}
