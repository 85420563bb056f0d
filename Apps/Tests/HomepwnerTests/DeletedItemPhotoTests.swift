import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension OnTheTestDatabase {
    /// A deleted item and its photo agree: both come back when an edit elsewhere
    /// brings the item back, and both go when the deletion is forgotten.
    @Suite(
        "Deleted items and their photos", .serialized,
        .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"),
        .enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage),
        .enabled(if: TestDatabase.script != nil, "needs KEEPSAKE_TEST_DATABASE_SCRIPT to stop the database and read it")
    )
    struct DeletedItemPhotoTests {
        let shared = SharedInstances(folder: "homepwner-deleted-photos")

        /// An item named `itemName` with `photo`, on `server`, known to `others` with its photo.
        func itemWithPhoto(_ itemName: String, _ photo: Data, on server: ServerProcess, seenBy others: [ServerProcess])
            async throws -> String
        {
            let created = try await HTTP.postForm(
                server.baseURL.appendingPathComponent("items"), [("name", itemName), ("valueInDollars", "300")])
            #expect(created.status == 303)
            let key = try #require(try await HTTP.items(server.baseURL).first { $0.name == itemName }).itemKey
            let uploaded = try await HTTP.send(
                "POST", server.baseURL.appendingPathComponent("items/\(key)/photo"), body: photo,
                contentType: "image/png")
            #expect(uploaded.status == 303)
            for other in others {
                try await waitUntil("the item and its photo reach \(other.baseURL)") {
                    try await HTTP.items(other.baseURL).contains { $0.itemKey == key && $0.hasPhoto }
                }
            }
            return key
        }

        /// The rows of `key` in the items table, and its photos and photo chunks.
        func rows(of key: String) throws -> String {
            try TestDatabase.sql(
                """
                SELECT (SELECT count(*) FROM keepsake_items WHERE store = '\(shared.name)' AND record_id = '\(key)'),
                    (SELECT count(*) FROM keepsake_blobs WHERE store = '\(shared.name)' AND key = '\(key)'),
                    (SELECT count(*) FROM keepsake_blob_chunks WHERE store = '\(shared.name)' AND key = '\(key)')
                """)
        }

        @Test(
            "With the database down, one instance deletes an item and the other then edits it: once it is back, the item returns on both, with its photo"
        )
        func aLaterEditBringsBackItemAndPhoto() async throws {
            let (first, second) = (try shared.start("first"), try shared.start("second"))
            let photo = RealImages.png + Data(repeating: 9, count: 600_000)
            let key = try await itemWithPhoto("Bike", photo, on: first, seenBy: [second])

            try await TestDatabase.whileAway("pause", restoredBy: "resume") {
                #expect(
                    try await HTTP.send("DELETE", first.baseURL.appendingPathComponent("items/\(key)")).status == 204)
                try await Task.sleep(for: .milliseconds(20))
                let edited = try await HTTP.postForm(
                    second.baseURL.appendingPathComponent("items/\(key)"),
                    [("name", "Red bike"), ("valueInDollars", "500")])
                #expect(edited.status == 303)
            }

            for server in [first, second] {
                try await waitUntil("the edited item and its photo are on \(server.baseURL)", timeout: .seconds(15)) {
                    try await HTTP.items(server.baseURL).contains {
                        $0.itemKey == key && $0.name == "Red bike" && $0.hasPhoto
                    }
                }
                let served = try await HTTP.send("GET", server.baseURL.appendingPathComponent("items/\(key)/photo"))
                #expect(served.status == 200 && served.body == photo, "the photo came back whole on \(server.baseURL)")
            }
            #expect(try first.terminate() == 0)
            #expect(try second.terminate() == 0)
        }

        @Test(
            "kill -9 right after a delete is acknowledged: after the restart the deletion reaches the database, and once forgotten no row, photo or chunk of the item remains"
        )
        func killAfterADeleteLeavesNoOrphanPhoto() async throws {
            let retention = ["--tombstone-retention", "0"]
            let first = try shared.start("first", retention)
            let photo = RealImages.png + Data(repeating: 3, count: 300_000)
            let key = try await itemWithPhoto("Lamp", photo, on: first, seenBy: [])
            try await waitUntil("the photo is in the database") { try rows(of: key) == "1|1|2\n" }

            #expect(try await HTTP.send("DELETE", first.baseURL.appendingPathComponent("items/\(key)")).status == 204)
            first.child.signal(SIGKILL)
            _ = try first.child.waitForExit()

            let restarted = try shared.start("first", retention)
            #expect(try await HTTP.items(restarted.baseURL).allSatisfy { $0.itemKey != key }, "the delete was kept")
            // The next save forgets deletions older than the retention, with their photos.
            try await Task.sleep(for: .milliseconds(20))
            let later = try await HTTP.postForm(
                restarted.baseURL.appendingPathComponent("items"), [("name", "Desk"), ("valueInDollars", "80")])
            #expect(later.status == 303)
            try await waitUntil("the deleted item and its photo are forgotten") { try rows(of: key) == "0|0|0\n" }
            let second = try shared.start("second", retention)
            try await waitUntil("a new instance has the store without the deleted item") {
                try await HTTP.items(second.baseURL).map(\.name) == ["Desk"]
            }
            #expect(try restarted.terminate() == 0)
            #expect(try second.terminate() == 0)
        }
    }
}
