@_spi(Journal) import AppSandbox
import Foundation
import PropertyList

/// What a replica keeps on disk: its name, the latest change it knows of for each key,
/// which of its own are not yet in the shared log (its outbox) and when it last pushed,
/// and how far it has read that log.
///
/// A binary plist in the container's `Library/Preferences/`, beside the app's
/// preferences, is the checkpoint; each change after it is a record of the store's
/// journal (``journalRecord(_:pushed:position:)``), and the checkpoint is written anew
/// once the journal outgrows 64 KiB. Only the latest change of each key is kept (a
/// removal as a tombstone), so the file holds the live values and little more, however
/// long the history.
struct UbiquitousStoreFile: Equatable {
    var replica: String
    var position: Int64 = 0
    var lastTimestamp: HybridTimestamp?
    /// The latest change of each key, in timestamp order.
    var log: [KeyValueChange] = []
    var pending: Set<HybridTimestamp> = []
    /// When a push to the shared log last succeeded.
    var lastPush: Date?

    /// Keeps `change` if it is the latest of its key, dropping the one it replaces
    /// (and that one's place in the queue: a change replaced before it was pushed need
    /// never be). Returns whether it was kept.
    @discardableResult
    mutating func merge(_ change: KeyValueChange, pending isPending: Bool) -> Bool {
        if let existing = log.firstIndex(where: { $0.key == change.key }) {
            let old = log[existing]
            guard old.timestamp < change.timestamp else { return false }
            log.remove(at: existing)
            pending.remove(old.timestamp)
        }
        let index = log.lastIndex { $0.timestamp < change.timestamp }.map { $0 + 1 } ?? 0
        log.insert(change, at: index)
        if isPending { pending.insert(change.timestamp) }
        return true
    }

    /// A journal record: changes to keep (with whether each is queued), changes now
    /// pushed, the log position read, and the clock; `replacing` when the changes are
    /// the whole log (a whole store read anew). The record of a push carries its time.
    func journalRecord(
        _ changes: [(KeyValueChange, pending: Bool)], pushed: [HybridTimestamp] = [], position: Int64? = nil,
        replacing: Bool = false
    ) throws(UbiquitousStoreError) -> Data {
        var root = PropertyListDictionary()
        if replacing { root["replace"] = .bool(true) }
        if !pushed.isEmpty, let lastPush { root["lastPush"] = .date(lastPush) }
        root["log"] = .array(changes.map { Self.entry($0.0, pending: $0.pending) })
        root["pushed"] = .array(
            pushed.map { .array([.integer($0.milliseconds), .integer($0.counter), .string($0.replica)]) })
        if let position { root["position"] = .integer(position) }
        if let lastTimestamp {
            root["clock"] = .array([.integer(lastTimestamp.milliseconds), .integer(lastTimestamp.counter)])
        }
        do {
            return Data(try PropertyListWriter.binary.write(.dictionary(root)))
        } catch {
            throw UbiquitousStoreError(.storageFailed, "cannot encode a journal record", underlyingError: error)
        }
    }

    /// Applies a record ``journalRecord(_:pushed:position:)`` made.
    /// - Throws: ``UbiquitousStoreError`` `.storageFailed` for a record that is not one.
    mutating func apply(journalRecord data: Data) throws(UbiquitousStoreError) {
        let record: PropertyListValue
        do {
            record = try PropertyListReader().read(data)
        } catch {
            throw UbiquitousStoreError(
                .storageFailed, "a journal record is not a property list", underlyingError: error)
        }
        guard let root = record.dictionaryValue, let entries = root["log"]?.arrayValue,
            let pushed = root["pushed"]?.arrayValue
        else { throw Self.corrupt("a journal record has no log") }
        if root["replace"]?.boolValue == true {
            log.removeAll()
            pending.removeAll()
        }
        for (index, entry) in entries.enumerated() {
            let (change, isPending) = try Self.change(from: entry, index: index)
            merge(change, pending: isPending)
        }
        for stamp in pushed {
            guard let fields = stamp.arrayValue, fields.count == 3, let milliseconds = fields[0].int64Value,
                let counter = fields[1].int64Value, let author = fields[2].stringValue
            else { throw Self.corrupt("a journal record's pushed change") }
            pending.remove(HybridTimestamp(milliseconds: milliseconds, counter: counter, replica: author))
        }
        if let position = root["position"]?.int64Value { self.position = position }
        if let clock = root["clock"] { lastTimestamp = try Self.clock(clock, replica: replica) }
        if let pushedAt = root["lastPush"]?.dateValue { lastPush = pushedAt }
    }

    private static func corrupt(_ what: String) -> UbiquitousStoreError {
        UbiquitousStoreError(.storageFailed, "the store's file is damaged: \(what)")
    }

    private static func entry(_ change: KeyValueChange, pending: Bool) -> PropertyListValue {
        var fields: [PropertyListValue] = [
            .string(change.key), .integer(change.timestamp.milliseconds), .integer(change.timestamp.counter),
            .string(change.timestamp.replica), .bool(pending),
        ]
        if let value = change.value { fields.append(value) }
        return .array(fields)
    }

    private static func change(from entry: PropertyListValue, index: Int) throws(UbiquitousStoreError) -> (
        KeyValueChange, Bool
    ) {
        guard let fields = entry.arrayValue, fields.count == 5 || fields.count == 6,
            let key = fields[0].stringValue, let milliseconds = fields[1].int64Value,
            let counter = fields[2].int64Value, let author = fields[3].stringValue,
            let isPending = fields[4].boolValue
        else { throw corrupt("change \(index)") }
        let timestamp = HybridTimestamp(milliseconds: milliseconds, counter: counter, replica: author)
        return (KeyValueChange(key: key, value: fields.count == 6 ? fields[5] : nil, timestamp: timestamp), isPending)
    }

    private static func clock(_ value: PropertyListValue, replica: String) throws(UbiquitousStoreError)
        -> HybridTimestamp
    {
        guard let clock = value.arrayValue, clock.count == 2, let milliseconds = clock[0].int64Value,
            let counter = clock[1].int64Value
        else { throw corrupt("clock") }
        return HybridTimestamp(milliseconds: milliseconds, counter: counter, replica: replica)
    }

    init(replica: String) {
        self.replica = replica
    }

    /// Each change as `[key, milliseconds, counter, replica, pending, value?]`.
    var propertyList: PropertyListValue {
        var root = PropertyListDictionary()
        root["replica"] = .string(replica)
        root["position"] = .integer(position)
        if let lastTimestamp {
            root["clock"] = .array([.integer(lastTimestamp.milliseconds), .integer(lastTimestamp.counter)])
        }
        root["log"] = .array(log.map { Self.entry($0, pending: pending.contains($0.timestamp)) })
        if let lastPush { root["lastPush"] = .date(lastPush) }
        return .dictionary(root)
    }

    /// - Throws: ``UbiquitousStoreError`` `.storageFailed` for a file that is not one.
    init(propertyList: PropertyListValue) throws(UbiquitousStoreError) {
        guard let root = propertyList.dictionaryValue, let replica = root["replica"]?.stringValue,
            let position = root["position"]?.int64Value, let log = root["log"]?.arrayValue
        else { throw Self.corrupt("replica, position or log missing") }
        self.replica = replica
        self.position = position
        if let clock = root["clock"] { lastTimestamp = try Self.clock(clock, replica: replica) }
        lastPush = root["lastPush"]?.dateValue
        for (index, entry) in log.enumerated() {
            let (change, isPending) = try Self.change(from: entry, index: index)
            if let previous = self.log.last, !(previous.timestamp < change.timestamp) {
                throw Self.corrupt("change \(index) is out of order")
            }
            self.log.append(change)
            if isPending { pending.insert(change.timestamp) }
        }
    }

    /// The file in `directory` and its digest: `nil` when there is none yet.
    /// - Throws: ``UbiquitousStoreError`` `.storageFailed`; a damaged file is left as it is.
    static func load(named name: String, in directory: SandboxDirectory) throws(UbiquitousStoreError) -> (
        file: Self, digest: CheckpointDigest
    )? {
        let data: Data
        do {
            data = try directory.contents(of: name)
        } catch .noSuchFile {
            return nil
        } catch {
            throw UbiquitousStoreError(.storageFailed, "cannot read \(name)", underlyingError: error)
        }
        do {
            return (try Self(propertyList: PropertyListReader().read(data)), CheckpointDigest(of: data))
        } catch let error as UbiquitousStoreError {
            throw error
        } catch {
            throw UbiquitousStoreError(.storageFailed, "\(name) is not a property list", underlyingError: error)
        }
    }

    /// The file in `directory` with its journal's records applied: what a store opened
    /// now would hold. Reads without the journal's lock, so it may be called beside the
    /// process holding the store; `nil` when there is no file yet.
    /// - Throws: ``UbiquitousStoreError`` `.storageFailed`.
    static func onDisk(named name: String, in directory: SandboxDirectory) throws(UbiquitousStoreError) -> Self? {
        guard var (file, digest) = try load(named: name, in: directory) else { return nil }
        for attempt in 1...5 {
            let records: [Data]?
            do {
                records = try Journal.records(Journal.name(besides: name), in: directory, following: digest)
            } catch {
                throw UbiquitousStoreError(.storageFailed, "cannot read the journal of \(name)", underlyingError: error)
            }
            if let records {
                for record in records { try file.apply(journalRecord: record) }
                return file
            }
            // The journal names another checkpoint. The same file again: the journal is
            // an older one, already folded into it (a crash before its restart), and
            // holds nothing more. A new file: a checkpoint was written meanwhile.
            guard let (again, newDigest) = try load(named: name, in: directory) else { return nil }
            if newDigest == digest { return file }
            (file, digest) = (again, newDigest)
            if attempt > 1 { Thread.sleep(forTimeInterval: 0.01) }
        }
        throw UbiquitousStoreError(.storageFailed, "\(name) kept changing while it was read")
    }

    /// Replaces the file durably, as a checkpoint of the store's journal; on failure
    /// the previous one is intact.
    /// - Throws: ``SandboxError``, and ``PropertyListError`` when a value cannot be written.
    func save(named name: String, in directory: SandboxDirectory) throws(SandboxError) -> CheckpointDigest {
        let bytes: [UInt8]
        do {
            bytes = try PropertyListWriter.binary.write(propertyList)
        } catch {
            throw SandboxError(.unsupported, "the store's values cannot be written: \(error)")
        }
        try directory.create()
        try directory.write(Data(bytes), to: name)
        return CheckpointDigest(of: Data(bytes))
    }
}
