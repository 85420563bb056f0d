import Foundation
import TestSupport
import Testing

extension OnTheTestDatabase {
    /// A Jepsen-style run: three Homepwner replicas on one database, a client each doing
    /// random operations, a nemesis causing faults, and a checker reading the history.
    ///
    /// `KEEPSAKE_JEPSEN_SECONDS` (default 100) sets how long operations run,
    /// `KEEPSAKE_JEPSEN_SEED` (default 28) the seed, and `KEEPSAKE_JEPSEN_MIN_FAULTS`
    /// (default 1) how often each kind of fault must have happened; `scripts/soak.sh`
    /// runs it for 30 minutes.
    @Suite(
        "Jepsen-style history check", .serialized,
        .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"),
        .enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage),
        .enabled(if: TestDatabase.script != nil, "needs KEEPSAKE_TEST_DATABASE_SCRIPT to crash the database"))
    struct JepsenTests {
        static let environment = ProcessInfo.processInfo.environment
        static let seconds = environment["KEEPSAKE_JEPSEN_SECONDS"].flatMap(Int.init) ?? 100
        static let seed = environment["KEEPSAKE_JEPSEN_SEED"].flatMap(UInt64.init) ?? 28
        static let minimumFaults = environment["KEEPSAKE_JEPSEN_MIN_FAULTS"].flatMap(Int.init) ?? 1
        /// Runs Homepwner's first item model, which has no serial numbers, as an instance
        /// not yet upgraded does; the first replica sets serial numbers on its items.
        static let oldModelReplica = 2

        @Test(
            "Random creates, edits, deletes and settings on 3 replicas, one running a model without serial numbers, under kill -9, SIGSTOP, database crashes, dropped LISTENs and poison rows: nothing acknowledged is lost, no serial number is erased by the old model, reads are monotonic and see their writes, and the replicas converge within 10 s"
        )
        func historyHasNoViolations() async throws {
            let history = JepsenHistory()
            let cluster = try JepsenCluster(replicas: 3, oldModelReplica: Self.oldModelReplica)
            defer { cluster.instances.removeContainers() }
            let nemesis = Nemesis(cluster: cluster, history: history, seed: Self.seed)
            let started = ContinuousClock.now
            let deadline = started + .seconds(Self.seconds)

            await withTaskGroup(of: Void.self) { group in
                group.addTask { await nemesis.run() }
                for replica in 0..<cluster.count {
                    group.addTask {
                        var client = JepsenClient(
                            replica: replica, cluster: cluster, history: history, seed: Self.seed &+ UInt64(replica))
                        await client.run(until: deadline)
                    }
                }
                // The clients end at the deadline; then the nemesis ends its fault, healed.
                for _ in 0..<cluster.count { await group.next() }
                nemesis.stop()
            }

            // Quiescence: every replica up, the database up. They must converge within 10 s.
            let quiet = ContinuousClock.now
            let expected = history.expected
            let settings = history.snapshot.settings
            var final: [[String: Int]] = []
            var formats: [String?] = []
            var serialViolations: [String] = []
            while true {
                final = []
                formats = []
                serialViolations = []
                for replica in 0..<cluster.count {
                    guard let base = cluster.baseURL(replica) else { continue }
                    let items = (try? await HTTP.items(base)) ?? []
                    final.append(Dictionary(items.map { ($0.name, $0.valueInDollars) }) { first, _ in first })
                    formats.append(try? await HTTP.currencyFormat(base))
                    guard replica != Self.oldModelReplica else { continue }
                    let serials = Dictionary(items.map { ($0.name, $0.serialNumber) }) { first, _ in first }
                    serialViolations += JepsenChecker.keptSerials(
                        in: serials, replica: replica, history: history.snapshot)
                }
                let converged =
                    final.count == cluster.count
                    && final.enumerated().allSatisfy {
                        JepsenChecker.lostWrites(in: $0.element, replica: $0.offset, expected: expected).isEmpty
                    } && Set(formats).count == 1 && formats.allSatisfy { $0 != nil } && serialViolations.isEmpty
                if converged || ContinuousClock.now - quiet > .seconds(10) { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            let convergence = ContinuousClock.now - quiet

            let snapshot = history.snapshot
            var violations = snapshot.violations
            for (replica, items) in final.enumerated() {
                violations += JepsenChecker.lostWrites(in: items, replica: replica, expected: expected)
            }
            violations += serialViolations
            violations += JepsenChecker.readYourWrites(snapshot)
            violations += JepsenChecker.monotonicReads(snapshot)
            if Set(formats).count != 1 || formats.contains(nil) {
                violations.append("the replicas' currency formats differ or cannot be read: \(formats)")
            }
            if let format = formats.first ?? nil, !settings.union(["dollars"]).contains(format) {
                violations.append("the currency format \(format) was never set")
            }

            let operations = snapshot.operations.values.reduce(0, +)
            let faults = snapshot.faults.values.reduce(0, +)
            print(
                """
                jepsen: seed \(Self.seed), \(Self.seconds) s of operations, \(cluster.count) replicas
                jepsen: operations \(operations): \(snapshot.operations.sorted { $0.key < $1.key })
                jepsen: reads \(snapshot.observations.count), items \(expected.count)
                jepsen: replica \(Self.oldModelReplica) runs the model without serial numbers: \(snapshot.serials.count) of its items given one, then edited by it \(snapshot.oldModelEditsAfterSerials) times
                jepsen: faults \(faults): \(snapshot.faults.sorted { $0.key < $1.key })
                jepsen: violations \(violations.count); converged in \(convergence) after quiescence
                """)
            if let first = violations.first { print(Self.diagnosis(of: first, in: snapshot, since: started)) }
            #expect(violations.isEmpty, "\(violations.prefix(20))")
            #expect(convergence <= .seconds(10), "the replicas had not converged 10 s after quiescence")
            for fault in Fault.allCases {
                #expect(
                    snapshot.faults[fault.rawValue, default: 0] >= Self.minimumFaults,
                    "\(fault.rawValue) happened \(snapshot.faults[fault.rawValue, default: 0]) times")
            }
            #expect(snapshot.operations["create", default: 0] > 0 && snapshot.operations["edit", default: 0] > 0)
            #expect(
                snapshot.oldModelEditsAfterSerials > 0,
                "the old-model replica edited none of its items after a serial number was set on one")
            #expect(try cluster.stopAll().allSatisfy { $0 == 0 }, "every replica stops cleanly")
        }

        /// The history of the item a violation names, and the faults with their times:
        /// where to start reading a failed run.
        static func diagnosis(
            of violation: String, in history: JepsenHistory.State, since start: ContinuousClock.Instant
        )
            -> String
        {
            let faults = history.faultLog.map {
                "\($0.kind)\($0.replica.map { " on replica \($0)" } ?? "") from \(start.duration(to: $0.began)) to \(start.duration(to: $0.healed))"
            }
            guard
                let name = violation.split(separator: " ").map({ $0.trimmingCharacters(in: .punctuationCharacters) })
                    .first(where: { history.items[$0] != nil }), let item = history.items[name]
            else { return "jepsen: first violation: \(violation)\njepsen: faults: \(faults)" }
            return """
                jepsen: first violation: \(violation)
                jepsen: \(name) (owner \(item.owner), key \(item.key ?? "?")): \(item.states.map { "\($0.state) at \(start.duration(to: $0.at))" })
                jepsen: \(name)'s serial numbers: \((history.serials[name]?.log ?? []).map { "\($0.serial) \($0.acknowledged ? "acknowledged" : "answer lost") at \(start.duration(to: $0.at))" })
                jepsen: faults: \(faults)
                """
        }
    }
}
