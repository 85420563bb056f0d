import Foundation
import PropertyList

/// The values a sequence of changes leaves, applied one at a time in timestamp order,
/// each refused whole when it would break the limits.
///
/// Every replica computes its values this way from the same changes, so replicas that
/// have seen the same changes hold the same values, whatever order the changes reached
/// them in: the result is what one store would hold had the changes been made in
/// timestamp order. A key's size is its UTF-8 bytes; a value's, its binary plist.
struct KeyValueReplay {
    struct Entry: Hashable {
        var value: PropertyListValue
        var bytes: Int
        var timestamp: HybridTimestamp
    }

    /// Why a change is refused.
    enum Refusal: Error, Hashable {
        case keyTooLong(bytes: Int)
        case valueTooLarge(bytes: Int)
        case tooManyKeys
        case totalTooLarge(bytes: Int)
    }

    let limits: UbiquitousStoreLimits
    private(set) var entries: [String: Entry] = [:]
    private(set) var totalBytes = 0
    /// The latest change applied: a change later than it can be applied in place;
    /// an earlier one means replaying from the start.
    private(set) var latest: HybridTimestamp?

    init(limits: UbiquitousStoreLimits) {
        self.limits = limits
    }

    /// The size a value counts for.
    static func size(of value: PropertyListValue) -> Int {
        // A value that cannot be written cannot be stored either: count it as too large.
        (try? PropertyListWriter.binary.write(value).count) ?? Int.max
    }

    /// What `change` would take if applied now: its entry's bytes (key and value; 0
    /// for a removal), or why it is refused. The value is encoded once here.
    func assess(_ change: KeyValueChange) -> Result<Int, Refusal> {
        let keyBytes = change.key.utf8.count
        guard keyBytes <= limits.maxKeyBytes else { return .failure(.keyTooLong(bytes: keyBytes)) }
        guard let value = change.value else { return .success(0) }
        let valueBytes = Self.size(of: value)
        guard valueBytes <= limits.maxValueBytes else { return .failure(.valueTooLarge(bytes: valueBytes)) }
        let existing = entries[change.key]
        if existing == nil, entries.count >= limits.maxKeys { return .failure(.tooManyKeys) }
        let total = totalBytes - (existing?.bytes ?? 0) + keyBytes + valueBytes
        guard total <= limits.maxTotalBytes else { return .failure(.totalTooLarge(bytes: total)) }
        return .success(keyBytes + valueBytes)
    }

    /// Applies `change` unless the limits refuse it; returns whether it was applied.
    /// Changes must come in timestamp order.
    @discardableResult
    mutating func apply(_ change: KeyValueChange) -> Bool {
        latest = max(latest ?? change.timestamp, change.timestamp)
        guard case .success(let bytes) = assess(change) else { return false }
        apply(change, entryBytes: bytes)
        return true
    }

    /// Applies `change`, which ``assess(_:)`` accepted with `bytes`.
    mutating func apply(_ change: KeyValueChange, entryBytes bytes: Int) {
        latest = max(latest ?? change.timestamp, change.timestamp)
        let old = entries[change.key]
        if let value = change.value {
            entries[change.key] = Entry(value: value, bytes: bytes, timestamp: change.timestamp)
            totalBytes += bytes - (old?.bytes ?? 0)
        } else if let old {
            entries[change.key] = nil
            totalBytes -= old.bytes
        }
    }

    /// The values `changes` leave.
    static func replaying(_ changes: some Sequence<KeyValueChange>, limits: UbiquitousStoreLimits) -> KeyValueReplay {
        var replay = KeyValueReplay(limits: limits)
        for change in changes.sorted(by: { $0.timestamp < $1.timestamp }) { replay.apply(change) }
        return replay
    }
}
