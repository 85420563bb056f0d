import Foundation
import Locking
import Synchronization
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Homepwner replicas sharing one inventory, which the nemesis kills, restarts and
/// stops, and the clients reach at whatever port each is on now.
final class JepsenCluster: Sendable {
    let instances: SharedInstances
    var name: String { instances.name }
    private let servers: Locked<[ServerProcess?]>
    /// Replicas frozen by SIGSTOP, which must not be read to settle an operation.
    private let stopped = Locked<Set<Int>>([])

    /// The replica that runs Homepwner's first item model, without serial numbers, as
    /// an instance not yet upgraded does.
    let oldModelReplica: Int?

    init(replicas: Int, oldModelReplica: Int? = nil) throws {
        instances = SharedInstances(folder: "homepwner-jepsen")
        servers = Locked(Array(repeating: nil, count: replicas))
        self.oldModelReplica = oldModelReplica
        for replica in 0..<replicas { try start(replica) }
    }

    var count: Int { servers.withLock { $0.count } }

    func start(_ replica: Int) throws {
        let environment = replica == oldModelReplica ? ["HOMEPWNER_ITEM_MODEL": "1"] : [:]
        let server = try instances.start("replica-\(replica)", environment: environment)
        servers.withLock { $0[replica] = server }
    }

    /// Where the replica serves now; nil while it is down.
    func baseURL(_ replica: Int) -> URL? { servers.withLock { $0[replica]?.baseURL } }

    /// Whether the replica is up and not frozen: a read of it then settles what it holds.
    func isAnswering(_ replica: Int) -> Bool {
        servers.withLock { $0[replica] != nil } && !stopped.withLock { $0.contains(replica) }
    }

    /// kill -9, then a restart on the same container. Blocks the calling thread.
    func killAndRestart(_ replica: Int) throws {
        let server = servers.withLock { servers in
            defer { servers[replica] = nil }
            return servers[replica]
        }
        server?.child.signal(SIGKILL)
        _ = try server?.child.waitForExit()
        try start(replica)
    }

    /// SIGSTOP for `duration`, then SIGCONT. Blocks the calling thread.
    func freeze(_ replica: Int, for duration: Duration) {
        guard let server = servers.withLock({ $0[replica] }) else { return }
        stopped.withLock { _ = $0.insert(replica) }
        server.child.signal(SIGSTOP)
        Thread.sleep(
            forTimeInterval: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        server.child.signal(SIGCONT)
        stopped.withLock { _ = $0.remove(replica) }
    }

    /// SIGTERM to every replica; their exit codes.
    func stopAll() throws -> [Int32] {
        try servers.withLock { $0 }.compactMap { try $0?.terminate() }
    }

    /// Everything the replicas printed, for a failure's message.
    var logs: String { servers.withLock { $0 }.compactMap { $0?.log }.joined(separator: "\n----\n") }
}

/// The faults the nemesis causes, one at a time.
enum Fault: String, CaseIterable {
    case killAndRestart = "kill -9 and restart"
    case freeze = "SIGSTOP, then SIGCONT"
    case databaseCrash = "PostgreSQL immediate stop, then start"
    case dropListen = "LISTEN connections dropped"
    case poisonRow = "poison row"
}

/// Causes a fault every few seconds on a thread of its own (each blocks: signals,
/// waits, the database script), until told to stop; every kind comes in turn, in an
/// order the seed shuffles.
final class Nemesis: Sendable {
    private let cluster: JepsenCluster
    private let history: JepsenHistory
    private let stopping = Atomic<Bool>(false)
    private let seed: UInt64

    init(cluster: JepsenCluster, history: JepsenHistory, seed: UInt64) {
        self.cluster = cluster
        self.history = history
        self.seed = seed
    }

    /// Runs until ``stop()``; returns when the last fault is healed.
    func run() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                self.loop()
                done.resume()
            }.start()
        }
    }

    func stop() { stopping.store(true, ordering: .relaxed) }

    private func loop() {
        var random = SplitMix64(seed: seed)
        var round: [Fault] = []
        while !stopping.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: 1.5 + Double(random.next() % 2_000) / 1_000)
            if stopping.load(ordering: .relaxed) { break }
            if round.isEmpty { round = Fault.allCases.shuffled(using: &random) }
            let fault = round.removeLast()
            let began = ContinuousClock.now
            do {
                let replica = try cause(fault, &random)
                history.fault(fault.rawValue, on: replica, began: began)
            } catch {
                history.failed("nemesis \(fault.rawValue)", "\(error)")
            }
        }
    }

    /// Causes `fault`; returns the replica it hit, or nil when it hit the database.
    private func cause(_ fault: Fault, _ random: inout SplitMix64) throws -> Int? {
        let replica = Int(random.next() % UInt64(cluster.count))
        switch fault {
        case .killAndRestart:
            try cluster.killAndRestart(replica)
            return replica
        case .freeze:
            cluster.freeze(replica, for: .milliseconds(500 + Int(random.next() % 1_500)))
            return replica
        case .databaseCrash:
            try TestDatabase.control("crash")
            Thread.sleep(forTimeInterval: 0.5 + Double(random.next() % 1_500) / 1_000)
            try TestDatabase.control("resume")
        case .dropListen:
            _ = try TestDatabase.sql(
                """
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE datname = current_database() AND query ILIKE 'LISTEN%'
                """)
        case .poisonRow:
            let name = cluster.name
            _ = try TestDatabase.sql(
                """
                INSERT INTO keepsake_kv (store, key, value, milliseconds, counter, replica)
                VALUES ('\(name)', 'currencyFormat', decode('00ff', 'hex'), 9223372036854775807, 0, 'nemesis');
                INSERT INTO keepsake_items (store, record_id, change_tag, position, archive, stamp_milliseconds,
                    stamp_counter, stamp_replica, field_stamps)
                SELECT store, 'poison-' || nextval('keepsake_item_tags'), nextval('keepsake_item_tags'), position,
                    archive, 32503680000000, 0, 'nemesis', NULL
                FROM keepsake_items WHERE store = '\(name)' AND archive IS NOT NULL LIMIT 1;
                SELECT pg_notify('keepsake_kv', '\(name)'), pg_notify('keepsake_items', '\(name)');
                """)
        }
        return nil
    }
}
