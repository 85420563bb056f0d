import AppStores
import Foundation
import PostgresNIO
import TestSupport
import Testing

@testable import KeepsakeCloud

/// Deleted items and their photos: kept while an edit elsewhere may still bring the
/// item back, then forgotten together.
@MainActor
@Suite(.enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage), .serialized)
struct TombstoneTests {
    let storeName = "test.tombstones.\(UUID().uuidString)"
    let conflicts = ConflictLog()

    func replica(_ name: String, retention: Duration) async throws -> Replica {
        let conflicts = conflicts
        return try await Replica(
            PostgresItemStoreBackend<Gadget>(
                database: try #require(TestDatabase.shared), store: storeName, mergePolicy: .fieldLastWriterWins,
                replica: name, tombstoneRetention: retention, onConflict: { conflicts.append($0) }))
    }

    var photos: PostgresBlobStore {
        get throws { PostgresBlobStore(database: try #require(TestDatabase.shared), store: storeName) }
    }

    /// The store's item rows, photos and photo chunks of `key`, and its horizon, as the tables hold them.
    func rows(of key: String) async throws -> String {
        let raw = DatabaseClient(try #require(TestDatabase.shared), timeout: .seconds(10))
        let (store, logger) = (storeName, PoisonRow.logger)
        return try await raw.withConnection { connection in
            let counts = try await connection.query(
                """
                SELECT (SELECT count(*) FROM keepsake_items WHERE store = \(store) AND record_id = \(key)),
                    (SELECT count(*) FROM keepsake_blobs WHERE store = \(store) AND key = \(key)),
                    (SELECT count(*) FROM keepsake_blob_chunks WHERE store = \(store) AND key = \(key)),
                    (SELECT count(*) FROM keepsake_items_horizon WHERE store = \(store))
                """, logger: logger
            ).collect().first?.decode((Int64, Int64, Int64, Int64).self)
            return counts.map { "items \($0.0), photos \($0.1), chunks \($0.2), horizon \($0.3)" } ?? "none"
        }
    }

    @Test("An item deleted here and edited later elsewhere comes back with its photo")
    func aLaterEditBringsTheItemBackWithItsPhoto() async throws {
        let (first, second) = (
            try await replica("A", retention: .seconds(86_400)), try await replica("B", retention: .seconds(86_400))
        )
        first.add(Gadget("Bike", value: 300, id: "bike"))
        try await first.save()
        let photo = Data(repeating: 7, count: 600_000)
        try await photos.set(photo, forKey: "bike")
        try await second.reload()

        first.allItems.removeAll { $0.id == "bike" }
        try await first.save()
        second.allItems[0].value = 500
        try await second.save()

        try await first.reload()
        #expect(first.allItems.map(\.value) == [500], "the later edit stands")
        #expect(try await photos.data(forKey: "bike", maxBytes: 1 << 20)?.data == photo, "and the photo with it")
        #expect(conflicts.all.map(\.recordID) == ["bike"], "the edit and the deletion met")
    }

    @Test(
        "After the retention a deletion is forgotten with its photo; a replica away meanwhile finds the item gone, its edit dropped and reported"
    )
    func aForgottenDeletionStandsWithItsPhoto() async throws {
        let retention = Duration.milliseconds(1)
        let (first, away) = (try await replica("A", retention: retention), try await replica("B", retention: retention))
        first.add(Gadget("Bike", value: 300, id: "bike"))
        first.add(Gadget("Lamp", value: 20, id: "lamp"))
        try await first.save()
        try await photos.set(Data(repeating: 1, count: 300_000), forKey: "bike")
        try await away.reload()

        first.allItems.removeAll { $0.id == "bike" }
        try await first.save()
        // A photo written after the deletion is a newer photo, for the item brought back.
        first.allItems.removeAll { $0.id == "lamp" }
        try await first.save()
        try await photos.set(Data([2]), forKey: "lamp")
        try await Task.sleep(for: .milliseconds(5))
        first.add(Gadget("Desk", value: 80, id: "desk"))
        try await first.save()
        #expect(
            try await rows(of: "bike") == "items 0, photos 0, chunks 0, horizon 1",
            "the row and the photo went together")
        #expect(try await rows(of: "lamp") == "items 0, photos 1, chunks 1, horizon 1", "the newer photo stays")

        away.allItems[0].value = 500
        try await away.save()
        let dropped = try #require(conflicts.all.first { $0.recordID == "bike" })
        #expect(dropped.server == nil && dropped.local != nil)
        #expect(try await away.backend.refresh(), "memory is out of date")
        try await away.reload()
        #expect(away.allItems.map(\.id) == ["desk"])
        #expect(try await rows(of: "bike") == "items 0, photos 0, chunks 0, horizon 1", "nothing came back")
        try await first.reload()
        #expect(first.allItems.map(\.id) == ["desk"])
    }
}
