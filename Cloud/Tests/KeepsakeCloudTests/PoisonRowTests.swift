import AppSandbox
import AppStores
import Foundation
import KeyedArchive
import PostgresNIO
import PropertyList
import Testing

@testable import KeepsakeCloud

/// A row written straight into a store's tables by someone with the database's URL,
/// as no replica would write it.
struct PoisonRow: Sendable, CustomTestStringConvertible {
    let testDescription: String
    /// The table it goes into, and the key the quarantine should name.
    let table: String
    let key: String
    /// What the reason must mention.
    let reasonMentions: String
    let insert: @Sendable (_ store: String, _ connection: PostgresConnection) async throws -> Void

    static let year3000: Int64 = 32_503_680_000_000
    static let logger = Logger(label: "keepsake.tests.poison")

    /// A key-value row of `key`.
    static func keyValue(
        _ name: String, reason: String, value: ByteBuffer? = ByteBuffer(bytes: Array("<string>x</string>".utf8)),
        milliseconds: Int64 = HybridLogicalClock.wallClock(), counter: Int64 = 0
    ) -> PoisonRow {
        PoisonRow(testDescription: name, table: "keepsake_kv", key: "poisoned", reasonMentions: reason) {
            store, connection in
            try await connection.query(
                """
                INSERT INTO keepsake_kv (store, key, value, milliseconds, counter, replica)
                VALUES (\(store), 'poisoned', \(value), \(milliseconds), \(counter), 'intruder')
                """, logger: logger)
        }
    }

    /// An item row of `id`, holding `archive`.
    static func item(
        _ name: String, reason: String, id: String = "poisoned", archive: Data,
        milliseconds: Int64 = HybridLogicalClock.wallClock(), counter: Int64 = 0, fieldStamps: String? = nil,
        position: Double = 99
    ) -> PoisonRow {
        PoisonRow(testDescription: name, table: "keepsake_items", key: id, reasonMentions: reason) {
            store, connection in
            try await connection.query(
                """
                INSERT INTO keepsake_items (store, record_id, change_tag, position, archive, stamp_milliseconds,
                    stamp_counter, stamp_replica, field_stamps)
                VALUES (\(store), \(id), nextval('keepsake_item_tags'), \(position), \(ByteBuffer(bytes: archive)),
                    \(milliseconds), \(counter), 'intruder', \(fieldStamps))
                """, logger: logger)
        }
    }

    static func gadget(id: String) -> Data {
        // Archiving a value type of the tests cannot fail.
        (try? KeyedArchiver.archivedData(withRootObject: Gadget("Intruder", value: 1, id: id))) ?? Data()
    }

    static let all: [PoisonRow] = [
        keyValue("a key-value timestamp of 2^63-1", reason: "ahead of this clock", milliseconds: .max, counter: .max),
        keyValue("a key-value timestamp in the year 3000", reason: "ahead of this clock", milliseconds: year3000),
        keyValue(
            "a key-value value that is not a property list", reason: "not a property list",
            value: ByteBuffer(bytes: [0x00, 0x01, 0xfe, 0xff])),
        item(
            "an item timestamp of 2^63-1", reason: "ahead of this clock", archive: gadget(id: "poisoned"),
            milliseconds: .max, counter: .max),
        item(
            "an item timestamp in the year 3000", reason: "ahead of this clock", archive: gadget(id: "poisoned"),
            milliseconds: year3000),
        item("an item archive that is no archive", reason: "archive cannot be read", archive: Data("junk".utf8)),
        item(
            "an archive of another class", reason: "holds no Gadget",
            archive: (try? KeyedArchiver.archivedData(
                withRootObject: ArchivedObject(className: "Sprocket", fields: [("id", "poisoned")]))) ?? Data()),
        item(
            "field stamps that are not JSON", reason: "field stamps", archive: gadget(id: "poisoned"),
            fieldStamps: "{not json"),
        item(
            "a field stamp in the year 3000", reason: "ahead of this clock", archive: gadget(id: "poisoned"),
            fieldStamps: #"{"name":{"milliseconds":32503680000000,"counter":0,"replica":"intruder"}}"#),
        item(
            "a position that is not a number", reason: "not a finite number", archive: gadget(id: "poisoned"),
            position: .nan),
        item(
            "a second row holding an item of an existing id", reason: "has the id bike", id: "bike-copy",
            archive: gadget(id: "bike")),
    ]
}

/// Rows written straight into the tables, as no replica would write them: each is
/// skipped, moved to the quarantine and listed there, while both instances stay up,
/// their clocks stay near the wall clock, and honest changes made after it still pass
/// between them within 10 s.
@Suite(.enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage), .serialized)
struct PoisonRowTests {
    /// One instance: a replica of the key-value store, running, and an item store.
    struct Instance {
        let container: AppContainer
        let settings: UbiquitousKeyValueStore
        let sync: PostgresKeyValueSync
        let items: PostgresItemStoreBackend<Gadget>
    }

    func instance(_ name: String, store: String) throws -> Instance {
        let database = try #require(TestDatabase.shared)
        let container = try AppContainer.temporary(identifier: "org.keepsake.poison-\(name)")
        return Instance(
            container: container,
            settings: try UbiquitousKeyValueStore(
                container: container, replica: name, notificationCenter: NotificationCenter()),
            sync: PostgresKeyValueSync(database: database, store: store),
            items: PostgresItemStoreBackend<Gadget>(database: database, store: store, replica: name))
    }

    /// Waits up to 10 s for `arrived`.
    func eventually(_ what: Comment, _ arrived: () async throws -> Bool) async throws {
        let start = ContinuousClock.now
        while try await !arrived() {
            try #require(ContinuousClock.now - start < .seconds(10), what)
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(
        "A poison row is quarantined, and honest changes after it still reach the other instance",
        arguments: PoisonRow.all)
    func poisonIsQuarantined(_ poison: PoisonRow) async throws {
        let store = "test.poison.\(UUID().uuidString)"
        let (a, b) = (try instance("a", store: store), try instance("b", store: store))
        defer { for instance in [a, b] { try? instance.container.destroy() } }
        let bike = Gadget("Bike", value: 300, id: "bike")
        try await a.items.save([bike])
        #expect(try await b.items.load() == [bike])
        try a.settings.setValue(.string("before"), forKey: "sortOrder")
        try await a.settings.sync(with: a.sync)

        let raw = DatabaseClient(try #require(TestDatabase.shared), timeout: .seconds(10))
        try await raw.withConnection { connection in try await poison.insert(store, connection) }

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await a.settings.run(with: a.sync) }
            group.addTask { await b.settings.run(with: b.sync) }
            defer { group.cancelAll() }
            // Both instances read the poison: neither stops, and neither takes it in.
            var inA = try await a.items.load()
            _ = try await b.items.refresh()
            #expect(try await b.items.load() == [bike], "the poison is no item")
            try await eventually("b read the settings") { b.settings.string(forKey: "sortOrder") == "before" }

            inA.append(Gadget("Honest", value: 5, id: "honest"))
            try await a.items.save(inA)
            try a.settings.setValue(.string("after"), forKey: "sortOrder")
            try await eventually("the honest create reached b") {
                _ = try await b.items.refresh()
                return try await b.items.load().contains { $0.id == "honest" }
            }
            try await eventually("the honest setting reached b") { b.settings.string(forKey: "sortOrder") == "after" }
        }
        #expect(b.settings.object(forKey: "poisoned") == nil)
        let bound = HybridLogicalClock.wallClock() + HybridTimestamp.maximumDrift.wholeMilliseconds
        for instance in [a, b] {
            #expect(instance.settings.clock.last.milliseconds <= bound, "the clock took in the poison's time")
        }
        let honestStamp = try await raw.withConnection { connection in
            try await connection.query(
                "SELECT stamp_milliseconds FROM keepsake_items WHERE store = \(store) AND record_id = 'honest'",
                logger: PoisonRow.logger
            ).collect().first?.decode(Int64.self)
        }
        #expect(try #require(honestStamp) <= bound, "the item store's clock took in the poison's time")

        let quarantined = try await a.sync.quarantinedRows()
        #expect(quarantined.count == 1, "moved once, though both instances read it: \(quarantined)")
        let row = try #require(quarantined.first)
        #expect(row.table == poison.table && row.key == poison.key)
        #expect(row.reason.contains(poison.reasonMentions), "\(row.reason)")
        let replicaColumn = poison.table == "keepsake_kv" ? "replica" : "stamp_replica"
        let left = try await raw.withConnection { connection in
            try await connection.query(
                """
                SELECT count(*) FROM \(unescaped: poison.table)
                WHERE store = \(store) AND \(unescaped: replicaColumn) = 'intruder'
                """, logger: PoisonRow.logger
            ).collect().first?.decode(Int64.self)
        }
        #expect(left == 0, "the poisoned row left its table")
    }
}

/// The quarantine is bounded in the database, whoever floods it: through replicas
/// reading junk, or by inserting into it directly.
@Suite(.enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage), .serialized)
struct QuarantineBoundTests {
    let store = "test.quarantine-bound.\(UUID().uuidString)"
    let raw = DatabaseClient(TestDatabase.shared!, timeout: .seconds(30))

    func count(_ condition: String = "true") async throws -> Int64 {
        let store = store
        return try await raw.withConnection { connection in
            try await connection.query(
                "SELECT count(*) FROM keepsake_quarantine WHERE store = \(store) AND \(unescaped: condition)",
                logger: PoisonRow.logger
            ).collect().first?.decode(Int64.self) ?? -1
        }
    }

    func junkLeft() async throws -> Int64 {
        let store = store
        return try await raw.withConnection { connection in
            try await connection.query(
                "SELECT count(*) FROM keepsake_kv WHERE store = \(store) AND replica = 'intruder'",
                logger: PoisonRow.logger
            ).collect().first?.decode(Int64.self) ?? -1
        }
    }

    @Test("1,500 junk rows read by a replica leave the store's newest 1,000 in the quarantine, and the table clean")
    func aFloodKeepsTheNewest() async throws {
        let sync = PostgresKeyValueSync(database: try #require(TestDatabase.shared), store: store)
        try await sync.prepare()
        let store = store
        try await raw.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO keepsake_kv (store, key, value, milliseconds, counter, replica)
                SELECT \(store), 'junk-' || i, '\\x00'::bytea, \(PoisonRow.year3000), i, 'intruder'
                FROM generate_series(1, 1500) i
                """, logger: PoisonRow.logger)
        }
        // Each rejected row is moved by a statement of its own: a slow machine (a
        // sanitizer's) may need several reads, each within its deadline, to move them all.
        for _ in 0..<20 {
            let (quarantined, junk) = (try await count(), try await junkLeft())
            if quarantined == 1_000 && junk == 0 { break }
            _ = try? await sync.summary()
        }
        #expect(try await junkLeft() == 0, "every junk row left the table")
        #expect(try await count() == 1_000)
        #expect(try await count("key = 'junk-1500'") == 1, "the newest are kept")
        #expect(try await count("key = 'junk-1'") == 0, "the oldest went")
    }

    @Test("A row of 1.3 MB inserted straight into the quarantine keeps its size only; a row past the retention goes")
    func sizeAndRetentionAreBounded() async throws {
        let store = store
        try await DatabaseSchema().migrate(on: raw, logger: PoisonRow.logger)
        try await raw.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO keepsake_quarantine (store, source, key, reason, row_data, quarantined_at)
                VALUES (\(store), 'keepsake_kv', 'old', 'old', '{}', now() - interval '31 days')
                """, logger: PoisonRow.logger)
            try await connection.query(
                """
                INSERT INTO keepsake_quarantine (store, source, key, reason, row_data)
                SELECT \(store), 'keepsake_kv', 'big', repeat('r', 5000),
                    jsonb_build_object('value', string_agg(md5(i::text), '')) FROM generate_series(1, 40000) i
                """, logger: PoisonRow.logger)
        }
        #expect(try await count("key = 'old'") == 0, "the row past 30 days went at the next insertion")
        let kept = try await raw.withConnection { connection in
            try await connection.query(
                """
                SELECT pg_column_size(row_data), row_data->>'bytes', octet_length(reason)
                FROM keepsake_quarantine WHERE store = \(store) AND key = 'big'
                """, logger: PoisonRow.logger
            ).collect().first?.decode((Int, String?, Int).self)
        }
        let (size, bytes, reason) = try #require(kept)
        #expect(size < 100, "the data was replaced by its size")
        #expect(Int(bytes ?? "") ?? 0 > 1_000_000, "its size is kept: \(bytes ?? "none")")
        #expect(reason == 1_024)
    }
}
