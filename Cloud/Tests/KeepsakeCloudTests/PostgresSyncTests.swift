import AppSandbox
import Foundation
import PropertyList
import Synchronization
import Testing

@testable import KeepsakeCloud

/// The database the tests share: `KEEPSAKE_TEST_DATABASE_URL`, which `.ci/run` sets
/// after starting a throwaway PostgreSQL cluster on loopback.
enum TestDatabase {
    static let url: String? = ProcessInfo.processInfo.environment["KEEPSAKE_TEST_DATABASE_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }
    static let skipMessage: Comment =
        "skipped: no PostgreSQL (set KEEPSAKE_TEST_DATABASE_URL=postgres://USER@127.0.0.1:PORT/DB; .ci/run starts one)"
}

/// Replicas of one store, each with its own container, clock and connection pool,
/// synchronised through PostgreSQL.
@Suite(.enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage), .serialized)
struct PostgresSyncTests {
    struct Replica {
        let container: AppContainer
        let store: UbiquitousKeyValueStore
        let service: PostgresKeyValueSync
    }

    /// Runs `body` with `count` replicas of a store no other test uses; `skews` are
    /// added to each replica's wall clock.
    func withReplicas(
        _ count: Int, skews: [Int64], centers: [NotificationCenter]? = nil, _ body: ([Replica]) async throws -> Void
    ) async throws {
        let name = "test-\(UUID().uuidString)"
        var replicas: [Replica] = []
        for index in 0..<count {
            let container = try AppContainer.temporary(identifier: "org.keepsake.kvs-\(index)")
            let skew = skews[index]
            let store = try UbiquitousKeyValueStore(
                container: container, replica: "replica-\(index)",
                notificationCenter: centers?[index] ?? NotificationCenter(),
                physicalTime: { Int64(Date().timeIntervalSince1970 * 1000) + skew })
            replicas.append(
                Replica(
                    container: container, store: store,
                    service: try PostgresKeyValueSync(url: try #require(TestDatabase.url), store: name)))
        }
        defer { for replica in replicas { try? replica.container.destroy() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for replica in replicas { group.addTask { await replica.service.run() } }
            defer { group.cancelAll() }
            try await body(replicas)
        }
    }

    @Test("Four replicas with skewed clocks, one offline for most of the run, converge on the timestamp-order replay")
    func replicasConverge() async throws {
        try await withReplicas(4, skews: [-30_000, 0, 45_000, 5_000]) { replicas in
            var generator = SystemRandomNumberGenerator()
            var accepted = 0
            for round in 0..<12 {
                for (index, replica) in replicas.enumerated() {
                    for _ in 0..<40 {
                        // 1,500 possible keys against a limit of 1,024: the limit decides.
                        let key = "key-\(Int.random(in: 0..<1_500, using: &generator))"
                        let value: PropertyListValue? =
                            Int.random(in: 0..<10, using: &generator) == 0
                            ? nil : .string(String(repeating: "v", count: Int.random(in: 1..<400, using: &generator)))
                        do {
                            try replica.store.setValue(value, forKey: key)
                            accepted += 1
                        } catch let error as UbiquitousStoreError where error.code == .quotaViolation {
                            // Refused here; not a change any replica will see.
                        }
                    }
                    // Replica 3 is offline until the last round.
                    if index != 3 || round == 11 { try await replica.store.sync(with: replica.service) }
                }
            }
            for replica in replicas { try await replica.store.sync(with: replica.service) }
            for replica in replicas { try await replica.store.sync(with: replica.service) }

            let service = replicas[0].service
            var everything: [KeyValueChange] = []
            var position: Int64 = 0
            while true {
                let batch = try await service.changes(after: position)
                if batch.position == position { break }
                everything += batch.changes
                position = batch.position
            }
            #expect(everything.count == accepted, "every change a replica accepted is in the log, once")
            let expected = KeyValueReplay.replaying(everything, limits: .init()).entries.mapValues(\.value)
            #expect(expected.count <= 1_024 && expected.count > 500)
            for replica in replicas {
                #expect(replica.store.values == expected, "\(replica.store.replica) differs from the replay")
            }
        }
    }

    @Test(
        "Changes from elsewhere are posted with their keys (initial sync, then server change); a replica's own are not")
    func onlyOthersChangesArePosted() async throws {
        let centers = [NotificationCenter(), NotificationCenter()]
        let posted = Mutex<[[Int: [String]]]>([[:], [:]].map { _ in [:] })
        let seen = Mutex<[(replica: Int, reason: Int, keys: [String])]>([])
        let tokens = centers.enumerated().map { index, center in
            center.addObserver(
                forName: UbiquitousKeyValueStore.didChangeExternallyNotification, object: nil, queue: nil
            ) {
                note in
                let reason = note.userInfo?[UbiquitousKeyValueStore.changeReasonKey] as? Int ?? -1
                let keys = note.userInfo?[UbiquitousKeyValueStore.changedKeysKey] as? [String] ?? []
                seen.withLock { $0.append((index, reason, keys)) }
            }
        }
        _ = posted
        defer { for (center, token) in zip(centers, tokens) { center.removeObserver(token) } }
        try await withReplicas(2, skews: [0, 0], centers: centers) { replicas in
            let (a, b) = (replicas[0], replicas[1])
            try a.store.setValue(.string("cents"), forKey: "currencyFormat")
            try await a.store.sync(with: a.service)
            try await b.store.sync(with: b.service)
            try await a.store.sync(with: a.service)
            try b.store.setValue(.integer(4), forKey: "rows")
            try await b.store.sync(with: b.service)
            try await a.store.sync(with: a.service)
            #expect(b.store.string(forKey: "currencyFormat") == "cents")
            #expect(a.store.longLong(forKey: "rows") == 4)
        }
        let notes = seen.withLock { $0 }
        #expect(notes.count == 2, "\(notes)")
        #expect(notes.first.map { [$0.replica, $0.reason] } == [1, 1], "b's first read is the initial sync")
        #expect(notes.first?.keys == ["currencyFormat"])
        #expect(notes.last.map { [$0.replica, $0.reason] } == [0, 0], "a reads b's change as a server change")
        #expect(notes.last?.keys == ["rows"])
    }

    @Test("A running store pushes its changes and shows others' within a second, through LISTEN/NOTIFY")
    func runningStoresExchangeChangesPromptly() async throws {
        try await withReplicas(2, skews: [0, 0]) { replicas in
            let (a, b) = (replicas[0], replicas[1])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await a.store.run(with: a.service) }
                group.addTask { await b.store.run(with: b.service) }
                defer { group.cancelAll() }
                try await Task.sleep(for: .milliseconds(300))
                let start = ContinuousClock.now
                try a.store.setValue(.string("name"), forKey: "sortOrder")
                while b.store.string(forKey: "sortOrder") != "name" {
                    try #require(ContinuousClock.now - start < .seconds(5), "the change did not arrive")
                    try await Task.sleep(for: .milliseconds(5))
                }
                #expect(ContinuousClock.now - start < .seconds(1))
            }
        }
    }
}
