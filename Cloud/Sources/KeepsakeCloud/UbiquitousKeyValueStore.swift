@_spi(Journal) public import AppSandbox
public import Foundation
import Locking
public import PropertyList

/// Settings shared between a user's devices, with Apple's API and contract:
/// `NSUbiquitousKeyValueStore`.
///
/// Local first: values live in a file of the app's container and can be read and
/// written with no service at all; changes made meanwhile are queued in that file and
/// pushed by the next ``sync()``. Replicas exchange changes, never whole values: each
/// change carries a ``HybridTimestamp``, and every replica applies the changes it knows
/// in timestamp order, refusing those that would break Apple's limits, so replicas
/// that have seen the same changes hold the same values (last writer wins, per key).
///
/// ```swift
/// let store = try UbiquitousKeyValueStore(container: .main)
/// store.set("cents", forKey: "currencyFormat")
/// NotificationCenter.default.addObserver(
///     forName: UbiquitousKeyValueStore.didChangeExternallyNotification, object: store, queue: nil
/// ) { note in print(note.userInfo?[UbiquitousKeyValueStore.changedKeysKey] ?? []) }
/// await store.run(with: PostgresKeyValueSync(database: database, store: "com.example.Homepwner"))
/// ```
///
/// Thread-safe: one lock guards the values; each change is recorded, in the lock's
/// order, in a write-ahead journal beside the file, and returns only once its record is
/// `fsync`ed. Changes made at once on several threads share one `fsync`. The file is
/// the checkpoint, written anew once the journal outgrows 64 KiB; it keeps only the
/// latest change of each key, so neither it nor the cost of a change grows with the
/// history. One store at a time may hold a container's journal.
public final class UbiquitousKeyValueStore: Sendable {
    /// Posted when values changed because of changes made elsewhere (never for this
    /// store's own), or when a change here was refused for the limits. Its user info
    /// holds ``changeReasonKey`` and ``changedKeysKey``.
    /// Corresponds to `NSUbiquitousKeyValueStore.didChangeExternallyNotification`.
    public static let didChangeExternallyNotification = Notification.Name(
        "NSUbiquitousKeyValueStoreDidChangeExternallyNotification")
    /// The ``ChangeReason`` raw value, an `Int`. Corresponds to
    /// `NSUbiquitousKeyValueStoreChangeReasonKey`.
    public static let changeReasonKey = "NSUbiquitousKeyValueStoreChangeReasonKey"
    /// The `[String]` of keys whose values changed. Corresponds to
    /// `NSUbiquitousKeyValueStoreChangedKeysKey`.
    public static let changedKeysKey = "NSUbiquitousKeyValueStoreChangedKeysKey"

    /// Why values changed, with Apple's raw values.
    public enum ChangeReason: Int, Sendable {
        /// Another replica changed them.
        case serverChange = 0
        /// The first changes read from the service into a store that had read none.
        case initialSyncChange = 1
        /// A change here was refused: it would break the limits.
        case quotaViolationChange = 2
        /// The account changed (not raised here: a store has one service).
        case accountChange = 3
    }

    struct State {
        var file: UbiquitousStoreFile
        var values: KeyValueReplay
        /// The binary-plist size of each value in the log, by its change's timestamp,
        /// so that replaying the log encodes only new values.
        var sizes: [HybridTimestamp: Int] = [:]
        /// Wakes ``run(with:retryInterval:)`` to push a change made here.
        var wake: AsyncStream<Void>.Continuation?

        init(file: UbiquitousStoreFile, limits: UbiquitousStoreLimits) {
            self.file = file
            values = KeyValueReplay(limits: limits)
            replay(limits: limits)
        }

        /// The values `file` leaves, and the sizes they need.
        func replayed(_ file: UbiquitousStoreFile, limits: UbiquitousStoreLimits) -> (
            KeyValueReplay, [HybridTimestamp: Int]
        ) {
            var sizes: [HybridTimestamp: Int] = [:]
            for change in file.log {
                guard let value = change.value else { continue }
                sizes[change.timestamp] = self.sizes[change.timestamp] ?? KeyValueReplay.size(of: value)
            }
            return (KeyValueReplay.replaying(file.log, limits: limits, sizes: sizes), sizes)
        }

        mutating func replay(limits: UbiquitousStoreLimits) {
            (values, sizes) = replayed(file, limits: limits)
        }
    }

    public let limits: UbiquitousStoreLimits
    public let notificationCenter: NotificationCenter
    let clock: HybridLogicalClock
    let state: Locked<State>
    let directory: SandboxDirectory
    let fileName: String
    let journal: Journal
    /// Past this many bytes of journal, the file is written anew and the journal emptied.
    static let checkpointBytes = 64 << 10

    /// Opens the store of `container`, creating it (with a new replica name) on first
    /// use.
    /// - Parameters:
    ///   - replica: this replica's name; by default one made when the store is first
    ///     created and kept in its file.
    ///   - physicalTime: milliseconds since 1970, for the hybrid clock; tests pass their own.
    ///   - lockTimeout: how long to wait for another store (in this process or
    ///     another) to close the container's journal.
    /// - Throws: ``UbiquitousStoreError`` `.storageFailed` when the file cannot be read
    ///   (it is left as it is), or another store keeps the journal past `lockTimeout`.
    public init(
        container: AppContainer, replica: String? = nil, limits: UbiquitousStoreLimits = .init(),
        notificationCenter: NotificationCenter = .default,
        physicalTime: (@Sendable () -> Int64)? = nil, lockTimeout: Duration = .seconds(2)
    ) throws(UbiquitousStoreError) {
        self.limits = limits
        self.notificationCenter = notificationCenter
        (directory, fileName) = Self.location(in: container)
        let fileName = fileName
        let directory = directory
        var loaded: UbiquitousStoreFile?
        let recovery: JournalRecovery
        do {
            (journal, recovery) = try Journal.open(
                Journal.name(besides: fileName), in: directory, lockTimeout: lockTimeout
            ) {
                if let (file, digest) = try UbiquitousStoreFile.load(named: fileName, in: directory) {
                    loaded = file
                    return digest
                }
                // The replica's name must outlive this process: written before any change.
                let file = UbiquitousStoreFile(replica: replica ?? UUID().uuidString)
                loaded = file
                return try file.save(named: fileName, in: directory)
            }
        } catch let error as UbiquitousStoreError {
            throw error
        } catch {
            throw UbiquitousStoreError(.storageFailed, "cannot open \(fileName)", underlyingError: error)
        }
        guard var file = loaded else { preconditionFailure("the checkpoint closure sets the file") }
        do {
            for record in recovery.records { try file.apply(journalRecord: record) }
        } catch {
            journal.close()
            throw error
        }
        if let physicalTime {
            clock = HybridLogicalClock(replica: file.replica, last: file.lastTimestamp, physicalTime: physicalTime)
        } else {
            clock = HybridLogicalClock(replica: file.replica, last: file.lastTimestamp)
        }
        state = Locked(State(file: file, limits: limits))
    }

    deinit { journal.close() }

    /// This replica's name.
    public var replica: String { clock.replica }

    // MARK: Reading

    /// The value for `key` as a property-list value.
    public func value(forKey key: String) -> PropertyListValue? {
        state.withLock { $0.values.entries[key]?.value }
    }

    /// Corresponds to `object(forKey:)`: the value bridged to Foundation types.
    public func object(forKey key: String) -> Any? { value(forKey: key)?.bridgedObject }
    public func string(forKey key: String) -> String? { value(forKey: key)?.stringValue }
    public func array(forKey key: String) -> [Any]? { value(forKey: key)?.arrayValue?.map(\.bridgedObject) }
    public func dictionary(forKey key: String) -> [String: Any]? {
        guard let value = value(forKey: key), value.dictionaryValue != nil else { return nil }
        return value.bridgedObject as? [String: Any]
    }
    public func data(forKey key: String) -> Data? { value(forKey: key)?.dataValue }
    /// Corresponds to `longLong(forKey:)`: 0 when absent or not a number.
    public func longLong(forKey key: String) -> Int64 { value(forKey: key)?.int64Value ?? 0 }
    /// 0 when absent or not a number.
    public func double(forKey key: String) -> Double { value(forKey: key)?.doubleValue ?? 0 }
    /// `false` when absent or not a boolean.
    public func bool(forKey key: String) -> Bool { value(forKey: key)?.boolValue ?? false }

    /// What waits to be pushed, and when a push last succeeded.
    public var outbox: Outbox {
        state.withLock { Outbox(pendingChanges: $0.file.pending.count, lastPush: $0.file.lastPush) }
    }

    /// Corresponds to `dictionaryRepresentation`.
    public var dictionaryRepresentation: [String: Any] {
        state.withLock { $0.values.entries.mapValues(\.value.bridgedObject) }
    }

    /// Every key and value, as property-list values.
    public var values: [String: PropertyListValue] {
        state.withLock { $0.values.entries.mapValues(\.value) }
    }

    // MARK: Changing

    /// Stores `value` for `key` (`nil` removes it), and queues the change for the next
    /// sync; returns once the change is durable. Blocks the calling thread on the
    /// `fsync`: from async code, ``write(_:forKey:)``.
    /// - Throws: ``UbiquitousStoreError``: `.quotaViolation` (also posted with
    ///   ``ChangeReason/quotaViolationChange``), before anything is written;
    ///   `.storageFailed`, and the change is then undone.
    public func setValue(_ value: PropertyListValue?, forKey key: String) throws(UbiquitousStoreError) {
        let ticket = try stage(value, forKey: key)
        do {
            try journal.waitUntilDurableBlocking(ticket)
        } catch {
            throw rollBack(error)
        }
    }

    /// ``setValue(_:forKey:)`` that suspends instead of blocking while the change is
    /// written.
    /// - Throws: ``UbiquitousStoreError``, as ``setValue(_:forKey:)``.
    public func write(_ value: PropertyListValue?, forKey key: String) async throws(UbiquitousStoreError) {
        let ticket = try stage(value, forKey: key)
        do {
            try await journal.waitUntilDurable(ticket)
        } catch {
            throw rollBack(error)
        }
    }

    /// Applies the change and queues its journal record, under the lock so that the
    /// journal's order is the values' order; refuses it first if the limits would.
    private func stage(_ value: PropertyListValue?, forKey key: String) throws(UbiquitousStoreError)
        -> Journal.Ticket
    {
        let staged: Result<Journal.Ticket, KeyValueReplay.Refusal> = try state.withLock {
            (state) throws(UbiquitousStoreError) in
            // Stamped under the lock: the log stays in timestamp order.
            let change = KeyValueChange(key: key, value: value, timestamp: clock.tick())
            guard state.values.refusals.isEmpty else { return try stageReplaying(change, in: &state) }
            // The change is the latest of all: with nothing refused so far, replaying the
            // log with it gives the current values with it applied, which `assess`
            // decides without the replay. The state is changed in place, never copied.
            let valueBytes = change.value.map(KeyValueReplay.size(of:))
            let bytes: Int
            switch state.values.assess(change, valueBytes: valueBytes) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let accepted): bytes = accepted
            }
            state.file.lastTimestamp = clock.last
            let ticket = try append(state.file.journalRecord([(change, true)]))
            if let replaced = state.file.log.first(where: { $0.key == key }) { state.sizes[replaced.timestamp] = nil }
            state.file.merge(change, pending: true)
            state.values.apply(change, entryBytes: bytes)
            if let valueBytes { state.sizes[change.timestamp] = valueBytes }
            checkpointIfLarge(state.file)
            state.wake?.yield()
            return .success(ticket)
        }
        switch staged {
        case .success(let ticket):
            return ticket
        case .failure(let refusal):
            post(.quotaViolationChange, keys: [key])
            throw UbiquitousStoreError(.quotaViolation, Self.describe(refusal), key: key)
        }
    }

    /// ``stage(_:forKey:)`` when the limits refused a change before: the log is replayed
    /// with the new change, since a change it replaces may have taken room a refused one
    /// now gets. Called under the lock.
    private func stageReplaying(_ change: KeyValueChange, in state: inout State) throws(UbiquitousStoreError)
        -> Result<Journal.Ticket, KeyValueReplay.Refusal>
    {
        var file = state.file
        file.merge(change, pending: true)
        let (values, sizes) = state.replayed(file, limits: limits)
        if let refusal = values.refusals[change.timestamp] ?? Self.permanentRefusal(of: change, limits: limits) {
            return .failure(refusal)
        }
        file.lastTimestamp = clock.last
        let ticket = try append(file.journalRecord([(change, true)]))
        state.file = file
        (state.values, state.sizes) = (values, sizes)
        checkpointIfLarge(state.file)
        state.wake?.yield()
        return .success(ticket)
    }

    /// Queues a journal record. Called under the lock.
    func append(_ record: Data) throws(UbiquitousStoreError) -> Journal.Ticket {
        do {
            return try journal.append(record)
        } catch {
            throw UbiquitousStoreError(.storageFailed, "cannot record the change", underlyingError: error)
        }
    }

    /// Writes the file anew, in the journal's order, once the journal outgrows
    /// ``checkpointBytes``. Called under the lock, with the state as it is now.
    func checkpointIfLarge(_ file: UbiquitousStoreFile) {
        guard journal.size > Self.checkpointBytes else { return }
        let (fileName, directory) = (fileName, directory)
        _ = journal.checkpoint { () throws(SandboxError) in try file.save(named: fileName, in: directory) }
    }

    /// After a failed journal write: cuts the journal back to its durable records and
    /// rebuilds the state from the disk, so that the store holds what a restart would
    /// find; returns the error to throw.
    func rollBack(_ error: SandboxError) -> UbiquitousStoreError {
        let failure = UbiquitousStoreError(.storageFailed, "cannot write \(fileName)", underlyingError: error)
        state.withLock { state in
            do {
                try journal.waitUntilDurableBlocking(journal.discardUndurable())
                guard let file = try UbiquitousStoreFile.onDisk(named: fileName, in: directory) else { return }
                state.file = file
                state.replay(limits: limits)
            } catch {
                StandardStream.error.report(
                    "UbiquitousKeyValueStore: cannot undo a change that failed to save: \(error)")
            }
        }
        return failure
    }

    /// Corresponds to `set(_:forKey:)`: like ``setValue(_:forKey:)``, but a refused or
    /// failed change is only reported (a quota violation is posted, as Apple's is; the
    /// other failures go to standard error).
    public func set(_ object: Any?, forKey key: String) {
        do {
            try setValue(
                object.map { (object) throws(UbiquitousStoreError) in try Self.value(of: object, key: key) },
                forKey: key)
        } catch  where error.code == .quotaViolation {
            // Posted already.
        } catch {
            StandardStream.error.report("UbiquitousKeyValueStore: \(error)")
        }
    }

    /// Corresponds to `removeObject(forKey:)`.
    public func removeObject(forKey key: String) {
        set(nil, forKey: key)
    }

    private static func value(of object: Any, key: String) throws(UbiquitousStoreError) -> PropertyListValue {
        do {
            return try PropertyListValue(bridging: object)
        } catch {
            throw UbiquitousStoreError(.notAPropertyList, "\(error)", key: key, underlyingError: error)
        }
    }

    /// Why `change` can never be held, whatever else the store holds: a key or value
    /// over its own limit. Such a change is not even kept in the log.
    static func permanentRefusal(of change: KeyValueChange, limits: UbiquitousStoreLimits) -> KeyValueReplay.Refusal? {
        switch KeyValueReplay(limits: limits).assess(change) {
        case .failure(let refusal): refusal
        case .success: nil
        }
    }

    static func describe(_ refusal: KeyValueReplay.Refusal) -> String {
        switch refusal {
        case .keyTooLong(let bytes): "the key is \(bytes) bytes of UTF-8; the limit is 64"
        case .valueTooLarge(let bytes): "the value is \(bytes) bytes; the limit is 1 MB"
        case .tooManyKeys: "the store holds 1,024 keys already"
        case .totalTooLarge(let bytes): "the store would hold \(bytes) bytes; the limit is 1 MB"
        }
    }

    func post(_ reason: ChangeReason, keys: [String]) {
        notificationCenter.post(
            name: Self.didChangeExternallyNotification, object: self,
            userInfo: [Self.changeReasonKey: reason.rawValue, Self.changedKeysKey: keys])
    }
}
