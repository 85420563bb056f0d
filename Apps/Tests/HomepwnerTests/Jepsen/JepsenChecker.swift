import Foundation

/// The checks of a history (``JepsenHistory``), each a list of violations.
enum JepsenChecker {
    /// No acknowledged write lost: `final` (one replica's items, value by name) holds
    /// each item as its owner's latest effective operation left it, and nothing else.
    static func lostWrites(in final: [String: Int], replica: Int, expected: [String: ItemState]) -> [String] {
        var violations: [String] = []
        for (name, state) in expected {
            let shown = final[name]
            switch state {
            case .present(let version) where shown != version:
                violations.append("replica \(replica): \(name) is \(shown.map { "v\($0)" } ?? "absent"), not \(state)")
            case .absent, .deleted:
                if let shown { violations.append("replica \(replica): \(name) is v\(shown), though \(state)") }
            default: break
            }
        }
        for name in final.keys where expected[name] == nil {
            violations.append("replica \(replica): \(name) was never created")
        }
        return violations
    }

    /// Fields kept through a rolling upgrade: each item the old-model replica owns
    /// shows, on a replica of the current model (`serials`, serial number by name),
    /// the serial number last set on it there, whatever edits the old model made since.
    static func keptSerials(
        in serials: [String: String?], replica: Int, history: JepsenHistory.State
    ) -> [String] {
        history.serials.compactMap { name, tags in
            guard case .present = history.items[name]?.latest, let shown = serials[name],
                !tags.allowed.contains(shown)
            else { return nil }
            return
                "replica \(replica): \(name)'s serial number is \(shown ?? "none"), not \(tags.acknowledged ?? "none") (or \(tags.perhaps)): an edit of the old model erased it"
        }.sorted()
    }

    /// Read-your-writes: every read a client made of its own replica shows each of its
    /// items as its latest effective operation before the read left it. Checked item by
    /// item over the reads from its creation to a few seconds after its last operation.
    static func readYourWrites(_ history: JepsenHistory.State) -> [String] {
        var violations: [String] = []
        let byReplica = Dictionary(grouping: history.observations, by: \.replica).mapValues {
            $0.sorted { $0.started < $1.started }
        }
        for (name, item) in history.items {
            guard let first = item.states.first?.at, let last = item.states.last?.at,
                let reads = byReplica[item.owner]
            else { continue }
            var index = firstIndex(in: reads, startingAfter: first)
            while index < reads.count, reads[index].started <= last + .seconds(5) {
                let observation = reads[index]
                index += 1
                // Only operations known to have taken effect before the read began count;
                // one settled during the read may or may not show.
                guard let effective = item.states.last(where: { $0.at < observation.started }),
                    !item.states.contains(where: { $0.at >= observation.started && $0.at <= observation.ended })
                else { continue }
                let shown = observation.values[name]
                let matches: Bool
                switch effective.state {
                case .present(let version): matches = shown == version
                case .absent, .deleted: matches = shown == nil
                }
                if !matches {
                    violations.append(
                        "replica \(observation.replica) showed its own \(name) as \(shown.map { "v\($0)" } ?? "absent") after \(effective.state)"
                    )
                }
            }
        }
        return violations
    }

    /// The index of the first of `reads` (sorted by start) that starts after `instant`.
    private static func firstIndex(in reads: [Observation], startingAfter instant: ContinuousClock.Instant) -> Int {
        var (low, high) = (0, reads.count)
        while low < high {
            let middle = (low + high) / 2
            if reads[middle].started <= instant { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Monotonic reads: reads of one replica, one after another, never show an item
    /// going back: to an older version, or back after it was gone (deleted).
    static func monotonicReads(_ history: JepsenHistory.State) -> [String] {
        var violations: [String] = []
        for (replica, observations) in Dictionary(grouping: history.observations, by: \.replica) {
            var highest: [String: Int] = [:]
            var previous: [String: Int] = [:]
            for observation in observations.sorted(by: { $0.started < $1.started }) {
                // Listed before, not now: gone, which only a later version could follow.
                for name in previous.keys where observation.values[name] == nil { highest[name] = Int.max }
                for (name, value) in observation.values {
                    if let before = highest[name], value < before {
                        violations.append(
                            "replica \(replica): \(name) went back to v\(value) after \(before == Int.max ? "it was gone" : "v\(before)")"
                        )
                    }
                    highest[name] = max(highest[name] ?? value, value)
                }
                previous = observation.values
            }
        }
        return violations
    }
}
