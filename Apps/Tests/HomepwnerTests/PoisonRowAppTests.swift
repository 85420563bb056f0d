import Foundation
import TestSupport
import Testing

extension OnTheTestDatabase {
    /// Rows written straight into the shared tables by someone with the database's URL,
    /// as no Homepwner would write them.
    @Suite(
        "Poison rows under two instances", .serialized,
        .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"),
        .enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage),
        .enabled(if: TestDatabase.script != nil, "needs KEEPSAKE_TEST_DATABASE_SCRIPT to write rows with psql"))
    struct PoisonRowAppTests {
        let shared = SharedInstances(folder: "homepwner-poison")

        /// Key-value rows with a timestamp of 2^63-1, one in the year 3000, and one whose
        /// value is no property list; item rows with those timestamps, copied from the
        /// bike's row, and a second row holding the bike under another id.
        var poison: String {
            let xmlString = "decode('3c737472696e673e783c2f737472696e673e', 'hex')"
            let copyOfTheBike = """
                SELECT store, %@, nextval('keepsake_item_tags'), position + 1, archive, %@, %@, 'intruder', NULL
                FROM keepsake_items WHERE store = '\(shared.name)' AND archive IS NOT NULL LIMIT 1
                """
            let itemColumns = """
                INSERT INTO keepsake_items (store, record_id, change_tag, position, archive, stamp_milliseconds,
                    stamp_counter, stamp_replica, field_stamps)
                """
            return """
                INSERT INTO keepsake_kv (store, key, value, milliseconds, counter, replica) VALUES
                    ('\(shared.name)', 'sortOrder', \(xmlString), 9223372036854775807, 9223372036854775807, 'intruder'),
                    ('\(shared.name)', 'currencyFormat', \(xmlString), 32503680000000, 0, 'intruder'),
                    ('\(shared.name)', 'junk', '\\x0001feff', 1, 0, 'intruder');
                \(itemColumns) \(String(format: copyOfTheBike, "'max'", "9223372036854775807", "9223372036854775807"));
                \(itemColumns) \(String(format: copyOfTheBike, "'y3000'", "32503680000000", "0"));
                \(itemColumns) \(String(format: copyOfTheBike, "'bike-copy'", "stamp_milliseconds", "stamp_counter"));
                SELECT pg_notify('keepsake_kv', '\(shared.name)'), pg_notify('keepsake_items', '\(shared.name)');
                """
        }

        @Test(
            "Rows no instance would write are quarantined once; both instances stay up, restart, and still exchange a create and a setting within 10 s"
        )
        func instancesOutlivePoisonRows() async throws {
            var (first, second) = (try shared.start("first"), try shared.start("second"))
            let seeded = try await HTTP.postForm(
                first.baseURL.appendingPathComponent("items"), [("name", "Bike"), ("valueInDollars", "300")])
            #expect(seeded.status == 303)
            try await waitUntil("the bike reaches the second instance") {
                try await HTTP.items(second.baseURL).map(\.name) == ["Bike"]
            }
            _ = try TestDatabase.sql(poison)

            // Past the 5 s in which the poison used to crash an instance, and through a restart.
            try await Task.sleep(for: .seconds(6))
            #expect(try second.terminate() == 0, "the second instance stopped cleanly: \(second.log)")
            let logBeforeRestart = second.log
            second = try shared.start("second")
            #expect(try await HTTP.items(second.baseURL).map(\.name) == ["Bike"], "no poison reads as an item")

            let honest = try await HTTP.postForm(
                first.baseURL.appendingPathComponent("items"), [("name", "Honest"), ("valueInDollars", "5")])
            #expect(honest.status == 303)
            let setting = try await HTTP.postForm(
                first.baseURL.appendingPathComponent("settings"), [("sortOrder", "name"), ("currencyFormat", "cents")])
            #expect(setting.status == 303)
            try await waitUntil("the honest create reaches the second instance") {
                try await HTTP.items(second.baseURL).map(\.name).sorted() == ["Bike", "Honest"]
            }
            try await waitUntil("the setting reaches the second instance") {
                try await HTTP.currencyFormat(second.baseURL) == "cents"
            }
            let quarantined = try TestDatabase.sql(
                "SELECT source, key FROM keepsake_quarantine WHERE store = '\(shared.name)' ORDER BY source, key")
            #expect(
                quarantined.split(separator: "\n").sorted()
                    == [
                        "keepsake_items|bike-copy", "keepsake_items|max", "keepsake_items|y3000",
                        "keepsake_kv|currencyFormat", "keepsake_kv|junk", "keepsake_kv|sortOrder",
                    ], "each poison row quarantined once: \(quarantined)")
            let reports =
                (first.log + logBeforeRestart + second.log).components(separatedBy: "failed its checks").count - 1
            #expect(reports == 6, "each row reported once, by the instance that moved it")
            #expect(try first.terminate() == 0)
            #expect(try second.terminate() == 0)
        }
    }
}
