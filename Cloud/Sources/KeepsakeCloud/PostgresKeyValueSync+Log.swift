import Logging
import PostgresNIO
public import PropertyList

/// What the shared log of a store holds, read and written directly rather than through
/// a replica: for tools (`keepsake cloud`), which have no container of their own.
extension PostgresKeyValueSync {
    /// A store as its log makes it: the values every replica holds once it has read the
    /// whole log.
    public struct LogSummary: Sendable {
        /// The values, by key.
        public var values: [String: PropertyListValue]
        /// The bytes the values count for against the limits (keys and binary plists).
        public var totalBytes: Int
        /// How many changes the log holds, and how many replicas made them.
        public var changeCount: Int
        public var replicaCount: Int
        /// The position of the log's last change, and that change's time.
        public var position: Int64
        public var latest: HybridTimestamp?
    }

    /// Reads the whole log and replays it in timestamp order under `limits`.
    /// - Throws: the database's error.
    public func summary(limits: UbiquitousStoreLimits = .init()) async throws -> LogSummary {
        let (changes, position) = try await wholeLog()
        let replay = KeyValueReplay.replaying(changes, limits: limits)
        return LogSummary(
            values: replay.entries.mapValues(\.value), totalBytes: replay.totalBytes, changeCount: changes.count,
            replicaCount: Set(changes.map(\.timestamp.replica)).count, position: position, latest: replay.latest)
    }

    /// Adds a change of `key` made by `replica`, later than every change in the log, to
    /// the value `newValue` gives for the current one (`nil` removes it), unless the
    /// limits refuse it; returns once the change is committed. Reading, checking and
    /// writing are one transaction under the store's lock, so of two updates at once
    /// the second checks the limits with the first's change in: an update that returns
    /// stands (a replica's offline change stamped earlier, pushed later, can still
    /// take the room first, as on Apple's service).
    /// - Throws: ``UbiquitousStoreError`` `.quotaViolation` (nothing is written),
    ///   `.syncFailed`; what `newValue` throws (nothing is written).
    public func update(
        _ key: String, replica: String, limits: UbiquitousStoreLimits = .init(),
        to newValue: @escaping @Sendable (_ current: PropertyListValue?) throws -> PropertyListValue?
    ) async throws {
        let (store, logger, retention) = (store, logger, tombstoneRetention)
        // First outside the transaction, so that what `newValue` throws reaches the
        // caller as it is; the transaction calls it again on what it reads under the lock.
        let current: [KeyValueChange]
        do {
            current = try await wholeLog().changes
        } catch {
            throw UbiquitousStoreError(.syncFailed, "cannot read the log of \(store)", underlyingError: error)
        }
        _ = try newValue(KeyValueReplay.replaying(current, limits: limits).entries[key]?.value)
        do {
            try await database.withTransaction(logger: logger) { connection in
                try await StoreLock.take("kv", of: store, on: connection, logger: logger)
                let changes = try await Self.wholeStore(store, on: connection, logger: logger)
                let replay = KeyValueReplay.replaying(changes, limits: limits)
                let value = try newValue(replay.entries[key]?.value)
                let clock = HybridLogicalClock(replica: replica, last: replay.latest)
                let change = KeyValueChange(key: key, value: value, timestamp: clock.tick())
                let after = KeyValueReplay.replaying(changes + [change], limits: limits)
                if let refusal = after.refusals[change.timestamp] {
                    throw UbiquitousStoreError(.quotaViolation, UbiquitousKeyValueStore.describe(refusal), key: key)
                }
                try await Self.insert(change, store: store, on: connection, logger: logger)
                try await Self.compact(
                    store: store, keys: [key], tombstonesBefore: Self.cutoff(retention), on: connection, logger: logger)
                try await connection.query("SELECT pg_notify(\(Self.channel), \(store))", logger: logger)
            }
        } catch {
            if let refusal = Self.storeError(in: error) { throw refusal }
            throw UbiquitousStoreError(.syncFailed, "cannot update the log of \(store)", underlyingError: error)
        }
    }

    /// A ``UbiquitousStoreError`` thrown inside a transaction, which the client may
    /// have wrapped.
    private static func storeError(in error: any Error) -> UbiquitousStoreError? {
        if let error = error as? UbiquitousStoreError { return error }
        if let error = error as? PostgresTransactionError, let inner = error.closureError {
            return storeError(in: inner)
        }
        return nil
    }

    /// The latest change of every key, read in `connection`'s transaction; rows that
    /// fail their checks are left out (the read of the whole log before it has
    /// quarantined those it found).
    static func wholeStore(_ store: String, on connection: PostgresConnection, logger: Logger) async throws
        -> [KeyValueChange]
    {
        let rows = try await connection.query(
            """
            SELECT key, value, milliseconds, counter, replica FROM keepsake_kv
            WHERE store = \(store) ORDER BY position
            """, logger: logger)
        var changes: [KeyValueChange] = []
        let check = RowCheck()
        for try await (key, value, milliseconds, counter, replica) in rows.decode(
            (String, ByteBuffer?, Int64, Int64, String).self)
        {
            let stamp = HybridTimestamp(milliseconds: milliseconds, counter: counter, replica: replica)
            if case .success(let change) = check.keyValueChange(key: key, value: value, stamp: stamp) {
                changes.append(change)
            }
        }
        return changes
    }

    /// The rows of this store that readers refused and moved to the quarantine
    /// (`keepsake_quarantine`), key-value and item rows alike, oldest first.
    /// - Throws: the database's error.
    public func quarantinedRows() async throws -> [QuarantinedRow] {
        try await prepare()
        let (quarantine, logger) = (quarantine, logger)
        return try await database.withConnection { connection in
            try await quarantine.rows(on: connection, logger: logger)
        }
    }

    private func wholeLog() async throws -> (changes: [KeyValueChange], position: Int64) {
        var changes: [KeyValueChange] = []
        var position: Int64 = 0
        while true {
            let batch = try await self.changes(after: position)
            if batch.position == position { return (changes, position) }
            changes = batch.isWholeStore ? batch.changes : changes + batch.changes
            position = batch.position
        }
    }
}
