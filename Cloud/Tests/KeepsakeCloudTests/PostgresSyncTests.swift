import AppSandbox
import Foundation
import Locking
import Logging
import PropertyList
import ServiceLifecycle
import TestSupport
import Testing

@testable import KeepsakeCloud

/// The database the tests share: `KEEPSAKE_TEST_DATABASE_URL`, which `scripts/test.sh` sets
/// after starting a throwaway PostgreSQL cluster on loopback.
enum TestDatabase {
    static let url: String? = ProcessInfo.processInfo.environment["KEEPSAKE_TEST_DATABASE_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }
    /// The test process's one client of the test database, running for as long as the
    /// process, as an app's would.
    static let shared: CloudDatabase? = url.flatMap { url in
        guard let database = try? CloudDatabase(url: url) else { return nil }
        Task.detached { try await database.run() }
        return database
    }
    static let skipMessage: Comment =
        "skipped: no PostgreSQL (set KEEPSAKE_TEST_DATABASE_URL=postgres://USER@127.0.0.1:PORT/DB; scripts/test.sh starts one)"

    /// `scripts/test-database.sh`, which can stop and start the server mid-test.
    static let script: String? = ProcessInfo.processInfo.environment["KEEPSAKE_TEST_DATABASE_SCRIPT"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Runs the script with `command` (`pause`, `resume`) and waits for it, on a thread
    /// of its own: the wait would otherwise hold one of the cooperative pool's few
    /// threads, which the replicas' tasks need meanwhile. Its output is this process's
    /// own, not a pipe: the server it starts would hold a pipe open, and the wait for the
    /// pipe's end would outlast the script.
    static func control(_ command: String) async throws {
        let script = URL(fileURLWithPath: try #require(script))
        let status: ChildProcess.Status = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        try ChildProcess.run(
                            script, [command], output: .inherit, errors: .inherit, within: .seconds(60)
                        ).status
                    })
            }.start()
        }
        try #require(status == .exited(0), "test-database.sh \(command) failed: \(status)")
    }
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

    /// Every change in the service's log, from the start.
    static func log(of service: PostgresKeyValueSync) async throws -> [KeyValueChange] {
        var changes: [KeyValueChange] = []
        var position: Int64 = 0
        while true {
            let batch = try await service.changes(after: position)
            if batch.position == position { return changes }
            changes = batch.isWholeStore ? batch.changes : changes + batch.changes
            position = batch.position
        }
    }

    /// The values every replica must converge on: the replay of the service's log,
    /// which must hold the latest change of every key in `acceptedKeys`, each once.
    static func replayOfTheLog(
        of service: PostgresKeyValueSync, holding acceptedKeys: Set<String>
    ) async throws -> [String: PropertyListValue] {
        let everything = try await log(of: service)
        #expect(
            Set(everything.map(\.key)).isSuperset(of: acceptedKeys),
            "every key a replica changed has its latest change in the log")
        #expect(Set(everything.map(\.timestamp)).count == everything.count, "no change is in the log twice")
        return KeyValueReplay.replaying(everything, limits: .init()).entries.mapValues(\.value)
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
                    service: PostgresKeyValueSync(database: try #require(TestDatabase.shared), store: name)))
        }
        defer { for replica in replicas { try? replica.container.destroy() } }
        try await body(replicas)
    }

    @Test("Four replicas with skewed clocks, one offline for most of the run, converge on the timestamp-order replay")
    func replicasConverge() async throws {
        try await withReplicas(4, skews: [-30_000, 0, 45_000, 5_000]) { replicas in
            var generator = SystemRandomNumberGenerator()
            var acceptedKeys: Set<String> = []
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
                            acceptedKeys.insert(key)
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

            let expected = try await Self.replayOfTheLog(of: replicas[0].service, holding: acceptedKeys)
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
        let seen = Locked<[(replica: Int, reason: Int, keys: [String])]>([])
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
            let (listening, listens) = AsyncStream<Void>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await a.store.run(with: ListeningSignal(base: a.service, listening: listens)) }
                group.addTask { await b.store.run(with: ListeningSignal(base: b.service, listening: listens)) }
                defer { group.cancelAll() }
                // Both replicas listen before the clock starts.
                var ready = 0
                for await _ in listening {
                    ready += 1
                    if ready == 2 { break }
                }
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

    /// A server that accepts connections and never answers: each exchange fails within
    /// the service's timeout rather than waiting on the client forever, and gives the
    /// calls after it a new client, which reaches the server once it answers again.
    /// A push of more changes than one transaction takes lands whole.
    @Test func aClientThatGetsNoAnswerTimesOutAndGivesWayToAFreshOne() async throws {
        let proxied = try ProxiedDatabase()
        defer { proxied.close() }
        let (proxy, database) = (proxied.proxy, proxied.database)
        let service = PostgresKeyValueSync(database: database, store: "test-\(UUID().uuidString)", timeout: .seconds(2))
        let stalledClient = ObjectIdentifier(database.client)
        let change = KeyValueChange(
            key: "k", value: .integer(1), timestamp: HybridTimestamp(milliseconds: 1, counter: 0, replica: "r"))

        let start = ContinuousClock.now
        let timeout = await #expect(throws: CloudDatabaseError.self) { try await service.push([change]) }
        #expect(timeout?.code == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(6), "the push waited \(ContinuousClock.now - start)")
        #expect(ObjectIdentifier(database.client) != stalledClient, "the client was replaced")

        proxy.stall(false)
        try await service.push([change])
        #expect(try await service.changes(after: 0).changes == [change])

        let many = (0..<(PostgresKeyValueSync.pushBatch * 2 + 1)).map { index in
            KeyValueChange(
                key: "k\(index)", value: .integer(Int64(index)),
                timestamp: HybridTimestamp(milliseconds: 2 + Int64(index), counter: 0, replica: "r"))
        }
        try await service.push(many)
        try await service.push(many)
        #expect(try await Self.log(of: service) == [change] + many, "every change once, in order")
    }

    /// A caller cancelled while its exchange waits on a client that never answers
    /// returns at once.
    @Test func aCancelledCallReturnsThoughTheClientNeverAnswers() async throws {
        let proxied = try ProxiedDatabase()
        defer { proxied.close() }
        let (proxy, database) = (proxied.proxy, proxied.database)
        let service = PostgresKeyValueSync(database: database, store: "test-\(UUID().uuidString)")
        let reading = Task { try await service.changes(after: 0) }
        try await proxy.waitUntilHoldingARequest()
        let start = ContinuousClock.now
        reading.cancel()
        await #expect(throws: CancellationError.self) { try await reading.value }
        #expect(ContinuousClock.now - start < .seconds(1), "the cancelled call took \(ContinuousClock.now - start)")
    }

    /// The process's client is a service: a graceful shutdown of its group ends it at
    /// once, though a call waits on a server that never answers (Homepwner's `SIGTERM`
    /// with the database frozen).
    @Test func aGracefulShutdownEndsTheClientThoughTheServerHangs() async throws {
        let (proxy, proxied) = try StallingProxy.inFrontOfTheTestDatabase()
        defer { proxy.close() }
        let database = try CloudDatabase(url: proxied)
        // A client that ignored the shutdown would be cancelled after 10 s, failing the test.
        var configuration = ServiceGroupConfiguration(services: [database], logger: Logger(label: "test"))
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        let group = ServiceGroup(configuration: configuration)
        let running = Task { try await group.run() }
        let service = PostgresKeyValueSync(
            database: database, store: "test-\(UUID().uuidString)", timeout: .seconds(60))
        let reading = Task { try await service.changes(after: 0) }
        defer { reading.cancel() }
        try await proxy.waitUntilHoldingARequest()
        let start = ContinuousClock.now
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(ContinuousClock.now - start < .seconds(2), "the shutdown took \(ContinuousClock.now - start)")
        // postgres-nio's client runs once: a second run is refused, not a crash.
        let refused = await #expect(throws: CloudDatabaseError.self) { try await database.run() }
        #expect(refused?.code == .alreadyRunning)
    }

    /// Stops the test database, which every suite shares: `scripts/test.sh` runs it alone.
    @Test(
        "PostgreSQL stopped and started mid-run: no acknowledged change is lost, and those made meanwhile are pushed",
        .enabled(
            if: TestDatabase.script != nil,
            "skipped: KEEPSAKE_TEST_DATABASE_SCRIPT is not set (scripts/test.sh sets it)"))
    func serverRestartLosesNothing() async throws {
        try await withReplicas(2, skews: [0, 2_000]) { replicas in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for replica in replicas {
                    group.addTask { await replica.store.run(with: replica.service, retryInterval: .milliseconds(100)) }
                }
                defer { group.cancelAll() }
                func write(_ range: Range<Int>) async throws {
                    for index in range {
                        for (number, replica) in replicas.enumerated() {
                            try replica.store.setValue(.integer(Int64(index)), forKey: "r\(number)-k\(index)")
                        }
                        try await Task.sleep(for: .milliseconds(2))
                    }
                }
                try await write(0..<100)
                try await TestDatabase.control("pause")
                // Acknowledged here, queued in the store's file while the server is down.
                try await write(100..<200)
                try await TestDatabase.control("resume")
                try await write(200..<300)

                let deadline = ContinuousClock.now + .seconds(30)
                while replicas.contains(where: { $0.store.values.count != 600 }) {
                    try #require(ContinuousClock.now < deadline, "replicas did not catch up after the restart")
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(replicas[0].store.values == replicas[1].store.values)
            #expect(replicas[0].store.values["r1-k150"] == .integer(150), "a change made while the server was down")
            let service = replicas[0].service
            #expect(try await Self.log(of: service).count == 600, "every acknowledged change is in the log, once")
        }
    }

    @Test(
        "Four processes make 2,500 changes each, two of them offline for part of the run; every replica converges on the replay",
        .enabled(if: BuiltProducts.executable(named: "CloudTestReplica") != nil, "CloudTestReplica is not built"))
    func fourProcessesConverge() async throws {
        let url = try #require(TestDatabase.url)
        let executable = try #require(BuiltProducts.executable(named: "CloudTestReplica"))
        let scratch = TemporaryDirectory("keepsake-replicas")
        defer { scratch.remove() }
        // Not made beforehand: the replicas make it, as they would on a first launch.
        let containers = scratch.file("containers")
        let name = "test-\(UUID().uuidString)"
        // Name, clock skew, and the changes made offline.
        let plans: [(String, Int64, Range<Int>)] = [
            ("a", -30_000, 1_000..<1_800), ("b", 0, 0..<0), ("c", 45_000, 300..<2_200), ("d", 5_000, 0..<0),
        ]
        let processes = try plans.enumerated().map { number, plan in
            try ChildProcess(
                executable,
                [
                    containers.path, plan.0, name, url, "2500", "\(number + 1)", "\(plan.1)",
                    "\(plan.2.lowerBound)", "\(plan.2.upperBound)",
                ])
        }
        var acceptedKeys: Set<String> = []
        for process in processes {
            defer { process.end() }
            #expect(try process.waitForExit(within: .seconds(600)) == .exited(0), "\(process.errors)")
            let line = try #require(process.lines.last { $0.hasPrefix("keys ") })
            acceptedKeys.formUnion(line.split(separator: " ").dropFirst().map(String.init))
        }

        let service = PostgresKeyValueSync(database: try #require(TestDatabase.shared), store: name)
        let expected = try await Self.replayOfTheLog(of: service, holding: acceptedKeys)
        #expect(expected.count > 900 && expected.count <= 1_024)
        for plan in plans {
            let container = try AppContainer(
                identifier: "org.keepsake.replica-\(plan.0)", containersDirectory: containers)
            let store = try UbiquitousKeyValueStore(container: container, notificationCenter: NotificationCenter())
            // What the others pushed after this replica's last sync.
            try await store.sync(with: service)
            #expect(store.values == expected, "replica \(plan.0) differs from the replay")
        }
    }
    @Test("The log keeps the latest change of each key: 3 keys changed 3,000 times leave 3 rows")
    func logIsCompacted() async throws {
        let service = PostgresKeyValueSync(
            database: try #require(TestDatabase.shared), store: "test-\(UUID().uuidString)")
        let clock = HybridLogicalClock(replica: "writer")
        let changes = (0..<3_000).map {
            KeyValueChange(key: "k\($0 % 3)", value: .integer(Int64($0)), timestamp: clock.tick())
        }
        for start in stride(from: 0, to: changes.count, by: 500) {
            try await service.push(Array(changes[start..<start + 500]))
        }
        let log = try await Self.log(of: service)
        #expect(log.count == 3)
        #expect(
            Dictionary(uniqueKeysWithValues: log.map { ($0.key, $0.value) }) == [
                "k0": .integer(2_997), "k1": .integer(2_998), "k2": .integer(2_999),
            ])
    }

    @Test(
        "A replica away longer than the log keeps removals reads the whole store, posted as an initial sync (reason 1)"
    )
    func awayTooLongResyncs() async throws {
        let centers = [NotificationCenter(), NotificationCenter()]
        try await withReplicas(2, skews: [0, 0], centers: centers) { replicas in
            let (writer, away) = (replicas[0], replicas[1])
            try writer.store.setValue(.integer(1), forKey: "gone")
            try writer.store.setValue(.integer(2), forKey: "kept")
            try await writer.store.sync(with: writer.service)
            try await away.store.sync(with: away.service)
            #expect(away.store.values == ["gone": .integer(1), "kept": .integer(2)])
            try away.store.setValue(.string("offline"), forKey: "mine")

            // The writer's service forgets removals at once: the replica that was away
            // can no longer learn of this one from the changes after its position.
            let forgetful = PostgresKeyValueSync(
                database: try #require(TestDatabase.shared), store: writer.service.store, tombstoneRetention: .zero)
            try writer.store.setValue(nil, forKey: "gone")
            try writer.store.setValue(.integer(3), forKey: "kept")
            try await writer.store.sync(with: forgetful)

            let posted = Locked<[(Int, [String])]>([])
            let token = centers[1].addObserver(
                forName: UbiquitousKeyValueStore.didChangeExternallyNotification, object: away.store, queue: nil
            ) { note in
                let reason = note.userInfo?[UbiquitousKeyValueStore.changeReasonKey] as? Int ?? -1
                let keys = note.userInfo?[UbiquitousKeyValueStore.changedKeysKey] as? [String] ?? []
                posted.withLock { $0.append((reason, keys)) }
            }
            defer { centers[1].removeObserver(token) }
            try await away.store.sync(with: away.service)
            #expect(away.store.values == ["kept": .integer(3), "mine": .string("offline")], "a silent gap")
            let notes = posted.withLock { $0 }
            #expect(notes.count == 1)
            #expect(notes.first?.0 == UbiquitousKeyValueStore.ChangeReason.initialSyncChange.rawValue)
            #expect(notes.first?.1 == ["gone", "kept"])
            // Its own offline change was kept and pushed.
            try await writer.store.sync(with: writer.service)
            #expect(writer.store.string(forKey: "mine") == "offline")
        }
    }
}

/// A replica's service that says when its `LISTEN` is in place: `watch` calls `changed`
/// first once it listens, and each watch here yields once then.
struct ListeningSignal: KeyValueSyncService {
    let base: PostgresKeyValueSync
    let listening: AsyncStream<Void>.Continuation

    func push(_ changes: [KeyValueChange]) async throws { try await base.push(changes) }

    func changes(after position: Int64) async throws -> KeyValueBatch { try await base.changes(after: position) }

    func watch(_ changed: @escaping @Sendable () -> Void) async {
        let pending = Locked(true)
        let listening = listening
        await base.watch {
            let first = pending.withLock { pending in
                defer { pending = false }
                return pending
            }
            if first { listening.yield() }
            changed()
        }
    }
}
