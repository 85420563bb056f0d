import Foundation
import Locking

/// What an item is, by its owner's operations: each item is written only by the
/// client that created it, so the latest operation that took effect says what every
/// replica must converge on. Its value counts the owner's edits: a version.
enum ItemState: Equatable, CustomStringConvertible {
    case absent
    case present(version: Int)
    case deleted

    var description: String {
        switch self {
        case .absent: "absent"
        case .present(let version): "v\(version)"
        case .deleted: "deleted"
        }
    }
}

/// One read of a replica's items: when it started and ended, and each item's value by name.
struct Observation: Sendable {
    var replica: Int
    var started: ContinuousClock.Instant
    var ended: ContinuousClock.Instant
    var values: [String: Int]
}

/// Everything the clients did and saw, and the faults the nemesis caused.
final class JepsenHistory: Sendable {
    struct State {
        /// Each item's owner, key and the states its owner's operations left, in order,
        /// each with when it was known to have taken effect.
        var items: [String: Item] = [:]
        var observations: [Observation] = []
        /// Currency formats set, acknowledged or perhaps taken (the answer was lost).
        var settings: Set<String> = []
        /// What a client saw that no correct replica shows.
        var violations: [String] = []
        var operations: [String: Int] = [:]
        var faults: [String: Int] = [:]
        var notes: [String] = []
        /// Each fault with what it hit (a replica, or nil for the database), when it
        /// began and when it was healed: an operation between the two may have met it.
        typealias FaultRecord = (
            kind: String, replica: Int?, began: ContinuousClock.Instant, healed: ContinuousClock.Instant
        )
        var faultLog: [FaultRecord] = []
        /// The serial numbers a replica of the current model set on the old-model
        /// replica's items, by item name (``SerialTags``).
        var serials: [String: SerialTags] = [:]
        /// Edits the old-model replica made to items after one of them was set.
        var oldModelEditsAfterSerials = 0
        /// Items an operation works on now: an owner's edit and a serial number set by
        /// another replica never overlap, so that the one's form never carries a value
        /// the other is changing.
        var busy: Set<String> = []
    }

    /// The serial numbers set on one item: the last acknowledged, and those set after
    /// it whose answer was lost (any of which may have taken).
    struct SerialTags {
        var acknowledged: String?
        var perhaps: [String] = []
        /// Each serial number set, with when its answer came (or was lost), for a diagnosis.
        var log: [(serial: String, acknowledged: Bool, at: ContinuousClock.Instant)] = []
        /// What the item may show: the last acknowledged or a later one perhaps taken.
        var allowed: Set<String?> { Set([acknowledged] + perhaps.map(Optional.some)) }
    }

    struct Item {
        var owner: Int
        var key: String?
        var states: [(state: ItemState, at: ContinuousClock.Instant)] = []
        var latest: ItemState { states.last?.state ?? .absent }
    }

    private let state = Locked(State())

    /// Records that the owner's operation on `name` took effect (acknowledged, or found
    /// applied after a failure), leaving `result`.
    func took(_ name: String, owner: Int, key: String?, result: ItemState, operation: String) {
        let now = ContinuousClock.now
        state.withLock { state in
            var item = state.items[name] ?? Item(owner: owner)
            if let key { item.key = key }
            item.states.append((result, now))
            state.items[name] = item
            state.operations[operation, default: 0] += 1
            if operation == "edit", state.serials[name] != nil { state.oldModelEditsAfterSerials += 1 }
        }
    }

    /// Marks `name` busy for one operation; `false` when another has it.
    func claim(_ name: String) -> Bool { state.withLock { $0.busy.insert(name).inserted } }

    func release(_ name: String) { state.withLock { _ = $0.busy.remove(name) } }

    /// Records that serial number `serial` was set on `name` (acknowledged, or the
    /// answer was lost).
    func setSerial(_ serial: String, on name: String, acknowledged: Bool) {
        state.withLock { state in
            var tags = state.serials[name] ?? SerialTags()
            if acknowledged {
                (tags.acknowledged, tags.perhaps) = (serial, [])
            } else {
                tags.perhaps.append(serial)
            }
            tags.log.append((serial, acknowledged, .now))
            state.serials[name] = tags
            state.operations[acknowledged ? "serial" : "serial (answer lost)", default: 0] += 1
        }
    }

    /// The names of `owner`'s items that are present, with their latest version.
    func presentItems(of owner: Int) -> [(name: String, version: Int)] {
        state.withLock { state in
            state.items.compactMap { name, item in
                guard item.owner == owner, case .present(let version) = item.latest else { return nil }
                return (name, version)
            }.sorted { $0.name < $1.name }
        }
    }

    /// Counts an operation that did not take effect (refused, or found not applied).
    func failed(_ operation: String, _ why: String) {
        state.withLock { state in
            state.operations["\(operation) (not applied)", default: 0] += 1
            if state.notes.count < 20 { state.notes.append("\(operation): \(why)") }
        }
    }

    func settingAcknowledged(_ value: String) {
        state.withLock { state in
            state.settings.insert(value)
            state.operations["setting", default: 0] += 1
        }
    }

    func settingMayHaveTaken(_ value: String) {
        state.withLock { state in
            state.settings.insert(value)
            state.operations["setting (answer lost)", default: 0] += 1
        }
    }

    func violation(_ description: String) { state.withLock { $0.violations.append(description) } }

    func observed(_ observation: Observation) { state.withLock { $0.observations.append(observation) } }

    /// Records a fault on `replica` (nil: the database) that began at `began` and is
    /// healed now.
    func fault(_ kind: String, on replica: Int?, began: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        state.withLock {
            $0.faults[kind, default: 0] += 1
            $0.faultLog.append((kind, replica, began, now))
        }
    }

    var snapshot: State { state.withLock { $0 } }

    /// Each item's latest state by its owner, by name.
    var expected: [String: ItemState] { state.withLock { $0.items.mapValues(\.latest) } }

    /// The key of `name` as last learnt.
    func key(of name: String) -> String? { state.withLock { $0.items[name]?.key } }
}
