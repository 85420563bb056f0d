import AppSandbox
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

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func run(_ arguments: String..., containers: URL? = nil) throws -> Output {
        let process = Process()
        process.executableURL = try #require(cloudCommand)
        let database = try #require(TestDatabase.url)
        process.arguments =
            [arguments[0], "--database", database, store] + arguments.dropFirst()
            + (containers.map { ["--containers", $0.path] } ?? [])
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test("set, get, status and remove work on the store's log, shaped like defaults")
    func setGetStatusRemove() throws {
        #expect(try run("set", "greeting", "hello").status == 0)
        #expect(try run("set", "count", "-int", "3").status == 0)
        #expect(try run("set", "tags", "-array", "a", "b").status == 0)
        #expect(try run("set", "tags", "-array-add", "c").status == 0)
        #expect(try run("get", "count").stdout == "3\n")
        #expect(try run("get", "greeting").stdout == "hello\n")
        #expect(
            try run("get").stdout
                == "{\n    count = 3;\n    greeting = hello;\n    tags = (\n        a,\n        b,\n        c\n    );\n}\n"
        )
        let status = try run("status").stdout
        #expect(status.contains("keys: 3 of 1024"), "\(status)")
        // The log keeps the latest change of each key: tags' first value is gone.
        #expect(status.contains("changes: 3 from"), "\(status)")
        #expect(try run("remove", "greeting").status == 0)
        let missing = try run("get", "greeting")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("The store/key pair of (\(store), greeting) does not exist"))
    }

    @Test("A change over Apple's limits is refused with exit status 1 and nothing is written")
    func quotaIsRefused() async throws {
        // 1,024 keys, written as one replica's changes.
        let service = try PostgresKeyValueSync(url: try #require(TestDatabase.url), store: store)
        let client = Task { await service.run() }
        defer { client.cancel() }
        let clock = HybridLogicalClock(replica: "filler")
        try await service.push(
            (0..<1_024).map { KeyValueChange(key: "key\($0)", value: .integer(Int64($0)), timestamp: clock.tick()) })
        let before = try run("status").stdout
        #expect(before.contains("keys: 1024 of 1024"), "\(before)")
        let extraKey = try run("set", "key1024", "-int", "1")
        #expect(extraKey.status == 1 && extraKey.stderr.contains("quotaViolation"), "\(extraKey.stderr)")
        let longKey = try run("set", String(repeating: "k", count: 65), "x")
        #expect(longKey.status == 1 && longKey.stderr.contains("quotaViolation"), "\(longKey.stderr)")
        #expect(try run("status").stdout == before, "nothing reached the log")
        #expect(try run("set", "key7", "-int", "70").status == 0, "an existing key can still change")
        #expect(try run("get", "key7").stdout == "70\n")
    }

    @Test("sync pushes an app's offline changes from its container and brings it others'")
    func syncsAnAppsReplica() throws {
        let containers = FileManager.default.temporaryDirectory.appendingPathComponent("cloud-cli-\(UUID())")
        defer { try? FileManager.default.removeItem(at: containers) }
        let container = try AppContainer(identifier: store, containersDirectory: containers)
        try container.createDirectories()
        do {
            let app = try UbiquitousKeyValueStore(container: container)
            app.set("offline", forKey: "madeByTheApp")
        }
        #expect(try run("set", "madeByTheTool", "-bool", "YES").status == 0)
        let synced = try run("sync", containers: containers)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.hasPrefix("pushed 1 changes; 2 keys"), "\(synced.stdout)")
        #expect(try run("get", "madeByTheApp").stdout == "offline\n")
        let app = try UbiquitousKeyValueStore(container: container)
        #expect(app.bool(forKey: "madeByTheTool"))
        #expect(app.pendingChangeCount == 0)
    }
    @Test("Ten sets at once, with room for four more keys: exactly four exit 0, and each of those stands")
    func concurrentSetsNearTheQuota() async throws {
        let service = try PostgresKeyValueSync(url: try #require(TestDatabase.url), store: store)
        let running = Task { await service.run() }
        defer { running.cancel() }
        let clock = HybridLogicalClock(replica: "filler")
        try await service.push(
            (0..<1_020).map { KeyValueChange(key: "k\($0)", value: .integer(1), timestamp: clock.tick()) })
        let outcomes = try await withThrowingTaskGroup(of: (String, Int32).self) { group in
            for index in 0..<10 {
                // Waited for off the cooperative pool, which ten blocked waits would starve.
                group.addTask {
                    let status = try await BlockingIO.run { try run("set", "new\(index)", "-int", "\(index)").status }
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
