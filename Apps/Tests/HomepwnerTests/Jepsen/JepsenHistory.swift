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
        /// Each fault with when it began and when it was healed: an operation between
        /// the two may have met it.
        var faultLog: [(kind: String, began: ContinuousClock.Instant, healed: ContinuousClock.Instant)] = []
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

    /// Records a fault that began at `began` and is healed now.
    func fault(_ kind: String, began: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        state.withLock {
            $0.faults[kind, default: 0] += 1
            $0.faultLog.append((kind, began, now))
        }
    }

    var snapshot: State { state.withLock { $0 } }

    /// Each item's latest state by its owner, by name.
    var expected: [String: ItemState] { state.withLock { $0.items.mapValues(\.latest) } }

    /// The key of `name` as last learnt.
    func key(of name: String) -> String? { state.withLock { $0.items[name]?.key } }
}
