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
    /// the value `newValue` gives for the current one (`nil` removes the key), unless
    /// the limits refuse it. The log is read once for both. A replica pushing at the
    /// same moment is not seen by the check; every replica's replay applies the limits
    /// again in timestamp order, so they still agree on whether it stands.
    /// - Throws: ``UbiquitousStoreError`` `.quotaViolation` (nothing is written),
    ///   `.syncFailed`; what `newValue` throws (nothing is written).
    public func update(
        _ key: String, replica: String, limits: UbiquitousStoreLimits = .init(),
        to newValue: (_ current: PropertyListValue?) throws -> PropertyListValue?
    ) async throws {
        let changes: [KeyValueChange]
        do {
            changes = try await wholeLog().changes
        } catch {
            throw UbiquitousStoreError(.syncFailed, "cannot read the log of \(store)", underlyingError: error)
        }
        let replay = KeyValueReplay.replaying(changes, limits: limits)
        let value = try newValue(replay.entries[key]?.value)
        let clock = HybridLogicalClock(replica: replica, last: replay.latest)
        let change = KeyValueChange(key: key, value: value, timestamp: clock.tick())
        let after = KeyValueReplay.replaying(changes + [change], limits: limits)
        if let refusal = after.refusals[change.timestamp] {
            throw UbiquitousStoreError(.quotaViolation, UbiquitousKeyValueStore.describe(refusal), key: key)
        }
        do {
            try await push([change])
        } catch {
            throw UbiquitousStoreError(.syncFailed, "cannot write to the log of \(store)", underlyingError: error)
        }
    }

    private func wholeLog() async throws -> (changes: [KeyValueChange], position: Int64) {
        var changes: [KeyValueChange] = []
        var position: Int64 = 0
        while true {
            let batch = try await self.changes(after: position)
            if batch.position == position { return (changes, position) }
            changes += batch.changes
            position = batch.position
        }
    }
}
