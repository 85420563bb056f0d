import AppRuntime
import AppSandbox
import AppStores
import Foundation
import PropertyList
import TestSupport
import Testing

@testable import KeepsakeCloud

/// The built `keepsake-cloud`, which `keepsake cloud` runs.
let cloudCommand = BuiltProducts.executable(named: "keepsake-cloud")

/// `keepsake-cloud` against PostgreSQL, as a user runs it.
@Suite(
    .enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage),
    .enabled(if: cloudCommand != nil, "the keepsake-cloud executable is not built"))
struct CloudCommandTests {
    let store = "com.example.cli\(UUID().uuidString.prefix(8).lowercased())"

    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `keepsake-cloud` and waits for it on a thread of its own: the cooperative
    /// pool's few threads must stay free for this process's own database calls, which a
    /// command may be waiting on.
    func run(
        _ arguments: String..., store: String? = nil, database: String? = nil, containers: URL? = nil
    ) async throws -> Output {
        let executable = try #require(cloudCommand)
        let url = try database ?? #require(TestDatabase.url)
        let arguments =
            [arguments[0], "--database", url, store ?? self.store] + arguments.dropFirst()
            + (containers.map { ["--containers", $0.path] } ?? [])
        return try await BlockingIO.run {
            let result = try ChildProcess.run(executable, arguments)
            return Output(status: result.exitCode, stdout: result.outputText, stderr: result.errorText)
        }
    }

    @Test("set, get, status and remove work on the store's log, shaped like defaults")
    func setGetStatusRemove() async throws {
        #expect(try await run("set", "greeting", "hello").status == 0)
        #expect(try await run("set", "count", "-int", "3").status == 0)
        #expect(try await run("set", "tags", "-array", "a", "b").status == 0)
        #expect(try await run("set", "tags", "-array-add", "c").status == 0)
        #expect(try await run("get", "count").stdout == "3\n")
        #expect(try await run("get", "greeting").stdout == "hello\n")
        #expect(
            try await run("get").stdout
                == "{\n    count = 3;\n    greeting = hello;\n    tags = (\n        a,\n        b,\n        c\n    );\n}\n"
        )
        let status = try await run("status").stdout
        #expect(status.contains("keys: 3 of 1024"), "\(status)")
        // The log keeps the latest change of each key: tags' first value is gone.
        #expect(status.contains("changes: 3 from"), "\(status)")
        #expect(try await run("remove", "greeting").status == 0)
        let missing = try await run("get", "greeting")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("The store/key pair of (\(store), greeting) does not exist"))
    }

    @Test("A change over Apple's limits is refused with exit status 1 and nothing is written")
    func quotaIsRefused() async throws {
        // 1,024 keys, written as one replica's changes.
        let service = PostgresKeyValueSync(database: try #require(TestDatabase.shared), store: store)
        let clock = HybridLogicalClock(replica: "filler")
        try await service.push(
            (0..<1_024).map { KeyValueChange(key: "key\($0)", value: .integer(Int64($0)), timestamp: clock.tick()) })
        let before = try await run("status").stdout
        #expect(before.contains("keys: 1024 of 1024"), "\(before)")
        let extraKey = try await run("set", "key1024", "-int", "1")
        #expect(extraKey.status == 1 && extraKey.stderr.contains("quotaViolation"), "\(extraKey.stderr)")
        let longKey = try await run("set", String(repeating: "k", count: 65), "x")
        #expect(longKey.status == 1 && longKey.stderr.contains("quotaViolation"), "\(longKey.stderr)")
        #expect(try await run("status").stdout == before, "nothing reached the log")
        #expect(try await run("set", "key7", "-int", "70").status == 0, "an existing key can still change")
        #expect(try await run("get", "key7").stdout == "70\n")
    }

    @Test(
        "sync pushes an app's offline changes from its container and brings it others'; status shows the outbox, read while the app holds the store"
    )
    func syncsAnAppsReplica() async throws {
        let scratch = TemporaryDirectory("cloud-cli")
        defer { scratch.remove() }
        // Not made beforehand: the container's createDirectories() makes it.
        let containers = scratch.file("containers")
        let container = try AppContainer(identifier: store, containersDirectory: containers)
        try container.createDirectories()
        do {
            let app = try UbiquitousKeyValueStore(container: container)
            app.set("offline", forKey: "madeByTheApp")
            app.set("again", forKey: "madeByTheApp")
            app.set(1, forKey: "counter")
            let status = try await run("status", containers: containers)
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdout.contains("outbox: 2 changes pending, last push never\n"), "\(status.stdout)")
        }
        #expect(try await run("set", "madeByTheTool", "-bool", "YES").status == 0)
        let beforeSync = Date()
        let synced = try await run("sync", containers: containers)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.hasPrefix("pushed 2 changes; 3 keys"), "\(synced.stdout)")
        let status = try await run("status", containers: containers).stdout
        let pushedAt = try #require(
            status.split(separator: "\n").first { $0.hasPrefix("outbox: 0 changes pending, last push ") }, "\(status)")
        let lastPush = try Date(String(pushedAt.split(separator: " ").last ?? ""), strategy: .iso8601)
        #expect(lastPush >= beforeSync.addingTimeInterval(-1) && lastPush <= Date(), "\(pushedAt)")
        #expect(try await run("get", "madeByTheApp").stdout == "again\n")
        let app = try UbiquitousKeyValueStore(container: container)
        #expect(app.bool(forKey: "madeByTheTool"))
        #expect(app.outbox.pendingChanges == 0)
    }
    @Test("A row written past the replicas is quarantined by the first read, listed by status, and set goes on")
    func statusListsQuarantinedRows() async throws {
        #expect(try await run("set", "greeting", "hello").status == 0)
        let raw = DatabaseClient(try #require(TestDatabase.shared), timeout: .seconds(10))
        try await raw.withConnection { connection in
            try await PoisonRow.keyValue("far future", reason: "", milliseconds: .max, counter: .max)
                .insert(store, connection)
        }
        let read = try await run("get")
        #expect(read.status == 0 && read.stdout == "{\n    greeting = hello;\n}\n", "\(read.stdout)\(read.stderr)")
        #expect(read.stderr.contains("a row of keepsake_kv failed its checks"), "reported: \(read.stderr)")
        let status = try await run("status")
        #expect(status.stdout.contains("quarantined: 1 rows\n  keepsake_kv \"poisoned\" at "), "\(status.stdout)")
        #expect(status.stdout.contains("ahead of this clock"), "\(status.stdout)")
        #expect(!status.stderr.contains("failed its checks"), "reported once, by the read that moved it")
        #expect(try await run("set", "poisoned", "-int", "2").status == 0, "the key is free again")
        #expect(try await run("get", "poisoned").stdout == "2\n")
    }

    @Test("grant prints the app's URL with its new password once, then with ***; that URL runs set and get")
    func grantPrintsTheAppsURLOnce() async throws {
        let first = try await run("grant")
        #expect(first.status == 0, "\(first.stderr)")
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == "role keepsake_\(store) made for \(store); its password is shown this once, in the app's URL:")
        let appURL = try #require(lines.last)
        let password = try #require(URLComponents(string: appURL)?.password)
        #expect(password.count == 64 && password != "***")
        #expect(try await run("set", "k", "v", database: appURL).status == 0)
        #expect(try await run("get", "k", database: appURL).stdout == "v\n")
        let again = try await run("grant")
        #expect(again.status == 0 && again.stdout.hasPrefix("role keepsake_\(store) exists"), "\(again.stdout)")
        #expect(!again.stdout.contains(password) && again.stdout.contains(":***@"), "\(again.stdout)")
    }

    @Test("A password in --database never reaches the output: not on success, not when the server cannot be reached")
    func passwordsAreNotPrinted() async throws {
        let secret = "hunter2-not-shown"
        let url = try #require(TestDatabase.url).replacingOccurrences(of: "@", with: ":\(secret)@")
        // The test server trusts local connections, so any password is accepted.
        let outputs = [
            try await run("set", "k", "v", database: url), try await run("status", database: url),
            try await run("get", "nothing", database: url),
            try await run("get", database: "postgres://me:\(secret)@127.0.0.1:1/none"),
            try await run("get", database: "postgres://me:\(secret)@/no-host"),
        ]
        for output in outputs {
            #expect(!(output.stdout + output.stderr).contains(secret), "\(output.stdout)\(output.stderr)")
        }
        #expect(outputs[3].status == 1 && outputs[4].status != 0)
        #expect(outputs[4].stderr.contains("me:***@"), "the URL is named, without its password: \(outputs[4].stderr)")
    }

    @Test("A store name over 255 bytes is refused with exit status 1, and nothing is written")
    func longStoreNamesAreRefused() async throws {
        let long = String(repeating: "s", count: 8_100)
        let set = try await run("set", "key", "value", store: long)
        #expect(set.status == 1 && set.stderr.contains("invalidStoreName"), "\(set.stderr)")
        let service = PostgresKeyValueSync(database: try #require(TestDatabase.shared), store: long)
        await #expect(throws: CloudDatabaseError.self) {
            try await service.push([
                KeyValueChange(key: "k", value: .integer(1), timestamp: HybridLogicalClock(replica: "r").tick())
            ])
        }
        let items = PostgresItemStoreBackend<Gadget>(database: try #require(TestDatabase.shared), store: long)
        let refused = await #expect(throws: StoreError.self) { try await items.save([Gadget("Bike", value: 1)]) }
        #expect((refused?.underlyingError as? CloudDatabaseError)?.code == .invalidStoreName)
        let photos = PostgresBlobStore(database: try #require(TestDatabase.shared), store: long)
        await #expect(throws: CloudDatabaseError.self) { try await photos.set(Data([1]), forKey: "photo") }
    }

    @Test("Ten sets at once, with room for four more keys: exactly four exit 0, and each of those stands")
    func concurrentSetsNearTheQuota() async throws {
        let service = PostgresKeyValueSync(database: try #require(TestDatabase.shared), store: store)
        let clock = HybridLogicalClock(replica: "filler")
        try await service.push(
            (0..<1_020).map { KeyValueChange(key: "k\($0)", value: .integer(1), timestamp: clock.tick()) })
        let outcomes = try await withThrowingTaskGroup(of: (String, Int32).self) { group in
            for index in 0..<10 {
                group.addTask {
                    let status = try await run("set", "new\(index)", "-int", "\(index)").status
                    return ("new\(index)", status)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        let succeeded = Set(outcomes.filter { $0.value == 0 }.keys)
        #expect(succeeded.count == 4, "\(outcomes)")
        #expect(outcomes.values.allSatisfy { $0 == 0 || $0 == 1 })
        let values = try await service.summary().values
        #expect(values.count == 1_024)
        #expect(succeeded.allSatisfy { values[$0] != nil }, "a set that exited 0 was dropped")
    }
}
