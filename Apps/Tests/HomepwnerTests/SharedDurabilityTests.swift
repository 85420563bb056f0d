import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif
extension OnTheTestDatabase {
    /// Homepwner processes sharing one inventory, broken as an operator would see it
    /// break: the database crashed or frozen under them, the processes stopped or killed.
    /// One suite, run serially: each test stops the one database every test uses.
    @Suite(
        "Shared inventory through a database crash", .serialized,
        .enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage),
        .enabled(if: TestDatabase.script != nil, "needs KEEPSAKE_TEST_DATABASE_SCRIPT to stop and start the database"))
    struct SharedDurabilityTests {
        let shared = SharedInstances(folder: "homepwner-shared-crash")

        @Test(
            "Database crashed, creates and edits on two instances, SIGTERM both: both exit within 5 s, and after restarts every acknowledged change is on both within 10 s"
        )
        func databaseCrashThenSigterm() async throws {
            var servers = try ["first", "second"].map { try shared.start($0) }
            // One item known to both before the crash, to edit on both sides.
            let seeded = try await HTTP.postForm(
                servers[0].baseURL.appendingPathComponent("items"), [("name", "Bike"), ("valueInDollars", "300")])
            #expect(seeded.status == 303)
            try await waitUntil("the item reaches the second instance", timeout: .seconds(10)) {
                try await HTTP.items(servers[1].baseURL).map(\.name) == ["Bike"]
            }
            let bike = try await HTTP.items(servers[0].baseURL)[0].itemKey

            var created: [String] = []
            try await TestDatabase.whileAway("crash", restoredBy: "resume") {
                for (index, server) in servers.enumerated() {
                    for number in 0..<20 {
                        let name = "offline-\(index)-\(number)"
                        let reply = try await HTTP.postForm(
                            server.baseURL.appendingPathComponent("items"), [("name", name), ("valueInDollars", "1")])
                        #expect(reply.status == 303, "a create was refused while the database was down")
                        if reply.status == 303 { created.append(name) }
                    }
                }
                // The first instance renames the bike, twice; the second revalues it.
                for name in ["Red bike", "Blue bike"] {
                    let reply = try await HTTP.postForm(
                        servers[0].baseURL.appendingPathComponent("items/\(bike)"),
                        [("name", name), ("valueInDollars", "300")])
                    #expect(reply.status == 303)
                }
                let revalued = try await HTTP.postForm(
                    servers[1].baseURL.appendingPathComponent("items/\(bike)"),
                    [("name", "Bike"), ("valueInDollars", "500")])
                #expect(revalued.status == 303)
                let settings = String(
                    decoding: try await HTTP.send("GET", servers[0].baseURL.appendingPathComponent("settings")).body,
                    as: UTF8.self)
                #expect(settings.contains("id=\"outbox\""), "the settings page shows what waits for the database")
                #expect(!settings.contains("<strong id=\"pending-items\">0</strong>"), "the pending items are counted")
                for server in servers { try expectPromptStop(server, "with the database down") }
            }

            servers = try ["first", "second"].map { try shared.start($0) }
            for server in servers {
                try await waitUntil("every acknowledged change reaches \(server.baseURL)", timeout: .seconds(10)) {
                    let items = try await HTTP.items(server.baseURL)
                    let names = Set(items.map(\.name))
                    guard let edited = items.first(where: { $0.itemKey == bike }) else { return false }
                    return names.isSuperset(of: created) && edited.name == "Blue bike" && edited.valueInDollars == 500
                }
            }
            for server in servers { #expect(try server.terminate() == 0) }
        }

        @Test(
            "kill -9 right after an acknowledgement, with a database, 20 rounds of sequential creates and deletes or 50 concurrent clients: nothing lost or undone, here and on a second instance"
        )
        func killAfterAcknowledgementInSharedMode() async throws {
            let acknowledged = CrashRecoveryTests.Acknowledged()
            try await CrashRecoveryTests.killRounds(20, seed: 28, acknowledged: acknowledged) {
                try shared.start("first")
            }
            let (names, deleted) = acknowledged.state.withLock { ($0.names, $0.deletedKeys) }
            // A second instance, new to the database, receives everything the first pushed.
            let first = try shared.start("first")
            let second = try shared.start("second")
            try await CrashRecoveryTests.check(first, against: acknowledged, after: "the last round")
            try await waitUntil(
                "every acknowledged create and delete reaches the second instance", timeout: .seconds(10)
            ) {
                let items = try await HTTP.items(second.baseURL)
                return Set(items.map(\.name)).isSuperset(of: names) && deleted.isDisjoint(with: items.map(\.itemKey))
            }
            #expect(try first.terminate() == 0)
            #expect(try second.terminate() == 0)
        }

        @Test(
            "With PostgreSQL stopped by SIGSTOP, pages and a create answer within 100 ms, and SIGTERM exits within 5 s"
        )
        func pagesAnswerWhileTheDatabaseHangs() async throws {
            let server = try shared.start("frozen")
            #expect(
                try await HTTP.postForm(server.baseURL.appendingPathComponent("items"), [("name", "Before")]).status
                    == 303)
            try await TestDatabase.whileAway("freeze", restoredBy: "thaw") {
                // Let the app's next exchange with the database start and hang.
                _ = try await HTTP.postForm(server.baseURL.appendingPathComponent("items"), [("name", "Hanging")])
                for path in ["", "settings", "items/x", "api/items", "container"] {
                    let start = ContinuousClock.now
                    let reply = try await HTTP.send("GET", server.baseURL.appendingPathComponent(path))
                    let took = ContinuousClock.now - start
                    #expect(reply.status == 200 || reply.status == 404)
                    #expect(took < .milliseconds(100), "GET /\(path) took \(took) with the database frozen")
                }
                let start = ContinuousClock.now
                let created = try await HTTP.postForm(
                    server.baseURL.appendingPathComponent("items"), [("name", "During")])
                let took = ContinuousClock.now - start
                #expect(created.status == 303)
                #expect(took < .milliseconds(100), "a create took \(took) with the database frozen")
                try expectPromptStop(server, "with the database frozen")
            }
            let restarted = try shared.start("frozen")
            #expect(Set(try await HTTP.items(restarted.baseURL).map(\.name)) == ["Before", "Hanging", "During"])
            #expect(try restarted.terminate() == 0)
        }

        /// SIGTERM ends `server` with status 0 within 5 s, `circumstance` notwithstanding.
        private func expectPromptStop(_ server: ServerProcess, _ circumstance: String) throws {
            let start = ContinuousClock.now
            #expect(try server.terminate(timeout: .seconds(20)) == 0)
            let took = ContinuousClock.now - start
            #expect(took < .seconds(5), "SIGTERM took \(took) \(circumstance)")
        }
    }
}
