public import AppSandbox
public import Foundation
public import PropertyList
import Synchronization

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
/// try await store.run(with: PostgresKeyValueSync(url: databaseURL, store: "com.example.Homepwner"))
/// ```
///
/// Thread-safe: one lock guards the values and their file, which is written (and
/// `fsync`ed) under it, so a change returns only once it is durable.
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
        /// Wakes ``run(with:retryInterval:)`` to push a change made here.
        var wake: AsyncStream<Void>.Continuation?
    }

    public let limits: UbiquitousStoreLimits
    public let notificationCenter: NotificationCenter
    let clock: HybridLogicalClock
    let state: Mutex<State>
    let directory: SandboxDirectory
    let fileName: String

    /// Opens the store of `container`, creating it (with a new replica name) on first
    /// use.
    /// - Parameters:
    ///   - replica: this replica's name; by default one made when the store is first
    ///     created and kept in its file.
    ///   - physicalTime: milliseconds since 1970, for the hybrid clock; tests pass their own.
    /// - Throws: ``UbiquitousStoreError`` `.storageFailed` when the file cannot be read;
    ///   it is left as it is.
    public init(
        container: AppContainer, replica: String? = nil, limits: UbiquitousStoreLimits = .init(),
        notificationCenter: NotificationCenter = .default,
        physicalTime: (@Sendable () -> Int64)? = nil
    ) throws(UbiquitousStoreError) {
        self.limits = limits
        self.notificationCenter = notificationCenter
        directory = container.directory(.preferences)
        fileName = "\(container.identifier).ubiquitous-kvs.plist"
        let file =
            try UbiquitousStoreFile.load(named: fileName, in: directory)
            ?? UbiquitousStoreFile(replica: replica ?? UUID().uuidString)
        if let physicalTime {
            clock = HybridLogicalClock(replica: file.replica, last: file.lastTimestamp, physicalTime: physicalTime)
        } else {
            clock = HybridLogicalClock(replica: file.replica, last: file.lastTimestamp)
        }
        state = Mutex(State(file: file, values: KeyValueReplay.replaying(file.log, limits: limits)))
    }

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

    /// Every key and value. Corresponds to `dictionaryRepresentation`.
    /// How many changes made here the service does not have yet.
    public var pendingChangeCount: Int { state.withLock { $0.file.pending.count } }

    public var dictionaryRepresentation: [String: Any] {
        state.withLock { $0.values.entries.mapValues(\.value.bridgedObject) }
    }

    /// Every key and value, as property-list values.
    public var values: [String: PropertyListValue] {
        state.withLock { $0.values.entries.mapValues(\.value) }
    }

    // MARK: Changing

    /// Stores `value` for `key` (`nil` removes it), durably, and queues the change for
    /// the next sync.
    /// - Throws: ``UbiquitousStoreError``: `.quotaViolation` (also posted with
    ///   ``ChangeReason/quotaViolationChange``) and `.storageFailed`; nothing changed.
    public func setValue(_ value: PropertyListValue?, forKey key: String) throws(UbiquitousStoreError) {
        let refusal: KeyValueReplay.Refusal? = try state.withLock { (state) throws(UbiquitousStoreError) in
            // Stamped under the lock: the log stays in timestamp order.
            let change = KeyValueChange(key: key, value: value, timestamp: clock.tick())
            let bytes: Int
            switch state.values.assess(change) {
            case .success(let accepted): bytes = accepted
            case .failure(let refusal): return refusal
            }
            var file = state.file
            file.log.append(change)
            file.pending.insert(change.timestamp)
            file.lastTimestamp = clock.last
            try file.save(named: fileName, in: directory)
            state.file = file
            state.values.apply(change, entryBytes: bytes)
            state.wake?.yield()
            return nil
        }
        if let refusal {
            post(.quotaViolationChange, keys: [key])
            throw UbiquitousStoreError(.quotaViolation, Self.describe(refusal), key: key)
        }
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
