/// Where a ``UbiquitousKeyValueStore``'s replicas meet: a shared, ordered log of
/// changes. ``PostgresKeyValueSync`` keeps it in PostgreSQL.
public protocol KeyValueSyncService: Sendable {
    /// Adds `changes` to the log; returns once they are durable there. Adding a change
    /// the log already holds does nothing, so a push that failed may be repeated.
    func push(_ changes: [KeyValueChange]) async throws
    /// The changes the log received after `position` (0: from the start), in the order
    /// it received them, and the position to ask from next time.
    func changes(after position: Int64) async throws -> (changes: [KeyValueChange], position: Int64)
    /// Runs until cancelled, calling `changed` whenever other replicas may have added
    /// changes (and once when it starts listening, for what it missed before).
    func watch(_ changed: @escaping @Sendable () -> Void) async
}
