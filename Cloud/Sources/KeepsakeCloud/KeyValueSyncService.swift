/// Where a ``UbiquitousKeyValueStore``'s replicas meet: a shared, ordered log of
/// changes. ``PostgresKeyValueSync`` keeps it in PostgreSQL.
public protocol KeyValueSyncService: Sendable {
    /// Adds `changes` to the log; returns once they are durable there. Adding a change
    /// the log already holds does nothing, so a push that failed may be repeated.
    func push(_ changes: [KeyValueChange]) async throws
    /// The changes the log received after `position` (0: from the start), in the order
    /// it received them, and the position to ask from next time. When the log no
    /// longer holds everything after `position` (it forgot removals older than its
    /// retention), the batch is the whole store instead (``KeyValueBatch/isWholeStore``).
    func changes(after position: Int64) async throws -> KeyValueBatch
    /// Runs until cancelled, calling `changed` whenever other replicas may have added
    /// changes (and once when it starts listening, for what it missed before).
    func watch(_ changed: @escaping @Sendable () -> Void) async
}

/// What a replica reads from the shared log in one call.
public struct KeyValueBatch: Sendable, Equatable {
    public var changes: [KeyValueChange]
    /// The position to ask from next time.
    public var position: Int64
    /// Whether `changes` is the whole store, the latest change of every key, rather than
    /// what came after the position asked for: the replica was away longer than the log
    /// keeps removals, and must replace what it holds (Apple's initial-sync change).
    public var isWholeStore: Bool

    public init(changes: [KeyValueChange], position: Int64, isWholeStore: Bool = false) {
        self.changes = changes
        self.position = position
        self.isWholeStore = isWholeStore
    }
}
