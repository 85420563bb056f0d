import Foundation
import PropertyList

/// The values a sequence of changes leaves: the latest change of each key, applied one
/// at a time in timestamp order, each refused whole when it would break the limits.
///
/// Every replica computes its values this way from the changes it knows, so replicas
/// that have seen the same changes hold the same values, whatever order the changes
/// reached them in. Only the latest change of each key counts, so a log that keeps
/// nothing else (a replica's, or the server's once compacted) gives the same values as
/// the whole history: that is what lets both forget the rest. A key's size is its
/// UTF-8 bytes; a value's, its binary plist.
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
    /// The latest change replayed.
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
    func assess(_ change: KeyValueChange, valueBytes known: Int? = nil) -> Result<Int, Refusal> {
        let keyBytes = change.key.utf8.count
        guard keyBytes <= limits.maxKeyBytes else { return .failure(.keyTooLong(bytes: keyBytes)) }
        guard let value = change.value else { return .success(0) }
        let valueBytes = known ?? Self.size(of: value)
        guard valueBytes <= limits.maxValueBytes else { return .failure(.valueTooLarge(bytes: valueBytes)) }
        let existing = entries[change.key]
        if existing == nil, entries.count >= limits.maxKeys { return .failure(.tooManyKeys) }
        let total = totalBytes - (existing?.bytes ?? 0) + keyBytes + valueBytes
        guard total <= limits.maxTotalBytes else { return .failure(.totalTooLarge(bytes: total)) }
        return .success(keyBytes + valueBytes)
    }

    /// Applies `change`, which ``assess(_:valueBytes:)`` accepted with `bytes`. Of a
    /// replay, only for a change later than every other and while nothing was refused:
    /// the replay with it then gives the same values.
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

    /// The changes the limits refused, by timestamp, and why.
    private(set) var refusals: [HybridTimestamp: Refusal] = [:]

    /// The values `changes` leave. `sizes` are the values' sizes already known, by the
    /// change's timestamp, so that a replay need not encode every value again.
    static func replaying(
        _ changes: some Sequence<KeyValueChange>, limits: UbiquitousStoreLimits,
        sizes: [HybridTimestamp: Int] = [:]
    ) -> KeyValueReplay {
        var latest: [String: KeyValueChange] = [:]
        for change in changes where latest[change.key].map({ $0.timestamp < change.timestamp }) ?? true {
            latest[change.key] = change
        }
        var replay = KeyValueReplay(limits: limits)
        for change in latest.values.sorted(by: { $0.timestamp < $1.timestamp }) {
            switch replay.assess(change, valueBytes: sizes[change.timestamp]) {
            case .success(let bytes): replay.apply(change, entryBytes: bytes)
            case .failure(let refusal):
                replay.latest = max(replay.latest ?? change.timestamp, change.timestamp)
                replay.refusals[change.timestamp] = refusal
            }
        }
        return replay
    }
}
