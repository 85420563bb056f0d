public import Foundation
import Logging
import PostgresNIO

/// A row read from a store's table that failed its checks (``RowCheck``): skipped by
/// the reader, then moved out of the table.
struct RejectedRow: Sendable, Equatable {
    enum Source: String, Sendable {
        case keyValue = "keepsake_kv"
        case items = "keepsake_items"
    }

    var source: Source
    /// The key, or the item's record id.
    var key: String
    /// The row's position (key-value) or change tag (items): which version of the key
    /// was read, so that a newer row written meanwhile is never the one moved.
    var version: Int64
    var reason: String
}

/// A row kept aside in `keepsake_quarantine`, as ``PostgresKeyValueSync/quarantinedRows()``
/// lists them.
public struct QuarantinedRow: Sendable, Hashable {
    /// The table it was moved from: `keepsake_kv` or `keepsake_items`.
    public var table: String
    /// The key, or the item's id.
    public var key: String
    /// Why a reader refused it.
    public var reason: String
    public var quarantinedAt: Date
}

/// Rows that fail their checks leave the store's tables for `keepsake_quarantine`,
/// whole (as JSON), with the reason: every replica then stops reading them, a later
/// honest change of the key is no longer outranked by a poisoned one, and an operator
/// can still look at what was written. Moving is one statement, so of two replicas
/// that find the row, one moves it, and only that one reports it.
///
/// The quarantine is bounded in the database, whoever writes to it: a store keeps its
/// newest ``maximumRows`` rows for ``retentionDays`` days, and a row larger than
/// ``maximumRowBytes`` keeps its size instead of its data. A read reports its first
/// ``reportedRows`` rows one by one, and counts the rest in one line.
struct RowQuarantine: Sendable {
    /// The most rows a store keeps: each insertion removes the oldest past it.
    static let maximumRows = 1_000
    /// How long a row is kept.
    static let retentionDays = 30
    /// The largest row kept whole (its JSON, as stored); a larger one keeps its size only.
    static let maximumRowBytes = 64 << 10
    /// Rows reported one by one per read; the others are counted in one line.
    static let reportedRows = 10

    let store: String
    /// Reports each row moved, at `error`: the stores' query logger stays quiet.
    let reporter: Logger

    init(store: String) {
        self.store = store
        reporter = Logger(label: "keepsake.cloud.quarantine")
    }

    /// Moves `rows` to the quarantine, each in a statement of its own on `connection`
    /// (not in a transaction: one that fails must not undo the others). A row that is
    /// gone or was rewritten meanwhile is left alone. Never throws: a row that cannot
    /// be moved is reported and stays skipped by this reader.
    func move(_ rows: [RejectedRow], on connection: PostgresConnection, logger: Logger) async {
        var unreported = 0
        for (index, row) in rows.enumerated() {
            let outcome: String?
            do {
                outcome = try await move(row, on: connection, logger: logger) ? "moved to keepsake_quarantine" : nil
            } catch {
                outcome = "skipped; moving it to keepsake_quarantine failed: \(String(reflecting: error))"
            }
            guard let outcome else { continue }
            if index < Self.reportedRows { report(row, outcome) } else { unreported += 1 }
        }
        if unreported > 0 {
            reporter.error(
                "\(unreported) more rows failed their checks and were moved aside or skipped",
                metadata: ["store": "\(store.prefix(255))"])
        }
    }

    private func move(_ row: RejectedRow, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let (store, key, version, reason) = (store, row.key, row.version, row.reason)
        let rows: PostgresRowSequence
        switch row.source {
        case .keyValue:
            rows = try await connection.query(
                """
                WITH moved AS (DELETE FROM keepsake_kv WHERE store = \(store) AND position = \(version) RETURNING *)
                INSERT INTO keepsake_quarantine (store, source, key, reason, row_data)
                SELECT store, 'keepsake_kv', key, \(reason), to_jsonb(moved) FROM moved RETURNING id
                """, logger: logger)
        case .items:
            rows = try await connection.query(
                """
                WITH moved AS (
                    DELETE FROM keepsake_items WHERE store = \(store) AND record_id = \(key)
                    AND change_tag = \(version) RETURNING *)
                INSERT INTO keepsake_quarantine (store, source, key, reason, row_data)
                SELECT store, 'keepsake_items', record_id, \(reason), to_jsonb(moved) FROM moved RETURNING id
                """, logger: logger)
        }
        return try await rows.collect().count > 0
    }

    private func report(_ row: RejectedRow, _ outcome: String) {
        reporter.error(
            "a row of \(row.source.rawValue) failed its checks and is \(outcome)",
            metadata: [
                "store": "\(store.prefix(255))", "key": "\(row.key.prefix(255))", "version": "\(row.version)",
                "reason": "\(row.reason)",
            ])
    }

    /// The store's quarantined rows, oldest first.
    func rows(on connection: PostgresConnection, logger: Logger) async throws -> [QuarantinedRow] {
        let rows = try await connection.query(
            """
            SELECT source, key, reason, quarantined_at FROM keepsake_quarantine
            WHERE store = \(store) ORDER BY id
            """, logger: logger)
        var quarantined: [QuarantinedRow] = []
        for try await (table, key, reason, at) in rows.decode((String, String, String, Date).self) {
            quarantined.append(QuarantinedRow(table: table, key: key, reason: reason, quarantinedAt: at))
        }
        return quarantined
    }
}
