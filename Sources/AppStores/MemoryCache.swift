import AppLifecycle
public import Foundation
import Locking

/// A thread-safe in-memory cache that evicts the least recently used entries.
///
/// Corresponds to `NSCache`, with the eviction order made definite: when adding an
/// entry takes the cache over ``countLimit`` or ``totalCostLimit``, the entries used
/// least recently (set or read) go first. Foundation's `NSCache` on Linux evicts the
/// newest instead. A memory warning (`Application.didReceiveMemoryWarningNotification`
/// on the cache's notification center) empties the cache unless
/// ``evictsOnMemoryWarning`` is off.
///
/// ```swift
/// let cache = MemoryCache<String, Data>(totalCostLimit: 50 << 20)
/// cache.setObject(jpeg, forKey: item.itemKey, cost: jpeg.count)
/// let hit = cache.object(forKey: item.itemKey)
/// ```
///
/// Keys and values must be `Sendable`, since any thread may read them.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Why an entry left the cache without being removed by name.
    public enum EvictionReason: String, Sendable, Hashable {
        case countLimit, totalCostLimit, memoryWarning
    }

    /// Called after entries leave the cache because of a limit or a memory warning
    /// (not for ``removeObject(forKey:)-(Key)`` or ``removeAllObjects()``), outside the
    /// cache's lock. Corresponds to `NSCacheDelegate.cache(_:willEvictObject:)`.
    public typealias EvictionHandler = @Sendable (_ key: Key, _ value: Value, _ reason: EvictionReason) -> Void

    struct Node {
        var key: Key
        var value: Value
        var cost: Int
        /// Towards the most recently used end.
        var newer: Int
        /// Towards the least recently used end.
        var older: Int
    }

    struct Storage {
        var nodes: [Node?] = []
        var free: [Int] = []
        var index: [Key: Int] = [:]
        var newest = -1
        var oldest = -1
        var totalCost = 0
        var countLimit: Int
        var totalCostLimit: Int

        mutating func unlink(_ slot: Int) {
            let node = nodes[slot]!
            if node.newer >= 0 { nodes[node.newer]!.older = node.older } else { newest = node.older }
            if node.older >= 0 { nodes[node.older]!.newer = node.newer } else { oldest = node.newer }
        }

        mutating func linkNewest(_ slot: Int) {
            nodes[slot]!.newer = -1
            nodes[slot]!.older = newest
            if newest >= 0 { nodes[newest]!.newer = slot }
            newest = slot
            if oldest < 0 { oldest = slot }
        }

        mutating func remove(_ slot: Int) -> Node {
            unlink(slot)
            let node = nodes[slot]!
            nodes[slot] = nil
            free.append(slot)
            index.removeValue(forKey: node.key)
            totalCost -= node.cost
            return node
        }

        /// Removes least recently used entries until both limits hold.
        mutating func trim() -> [(Key, Value, EvictionReason)] {
            var evicted: [(Key, Value, EvictionReason)] = []
            while oldest >= 0 {
                let reason: EvictionReason
                if countLimit > 0, index.count > countLimit {
                    reason = .countLimit
                } else if totalCostLimit > 0, totalCost > totalCostLimit {
                    reason = .totalCostLimit
                } else {
                    break
                }
                let node = remove(oldest)
                evicted.append((node.key, node.value, reason))
            }
            return evicted
        }
    }

    private let storage: Locked<Storage>
    private let onEviction: EvictionHandler?
    private let evictsOnWarning = Locked(true)
    private let notificationCenter: NotificationCenter
    /// Written once in `init`, read once in `deinit`: no concurrent access.
    nonisolated(unsafe) private var observer: (any NSObjectProtocol)?

    /// - Parameters:
    ///   - countLimit: most entries kept; `0` for no limit. Corresponds to `NSCache.countLimit`.
    ///   - totalCostLimit: most total cost kept; `0` for no limit. Corresponds to
    ///     `NSCache.totalCostLimit`.
    ///   - notificationCenter: where memory warnings are observed.
    ///   - onEviction: see ``EvictionHandler``.
    public init(
        countLimit: Int = 0, totalCostLimit: Int = 0,
        notificationCenter: NotificationCenter = .default,
        onEviction: EvictionHandler? = nil
    ) {
        storage = Locked(Storage(countLimit: max(0, countLimit), totalCostLimit: max(0, totalCostLimit)))
        self.onEviction = onEviction
        self.notificationCenter = notificationCenter
        observer = notificationCenter.addObserver(
            forName: Application.didReceiveMemoryWarningNotification, object: nil, queue: nil
        ) { [weak self] _ in
            self?.receiveMemoryWarning()
        }
    }

    deinit {
        if let observer { notificationCenter.removeObserver(observer) }
    }

    /// Most entries kept (`0`: no limit). Lowering it evicts at once.
    public var countLimit: Int {
        get { storage.withLock { $0.countLimit } }
        set { setLimit(\.countLimit, to: newValue) }
    }

    /// Most total cost kept (`0`: no limit). Lowering it evicts at once.
    public var totalCostLimit: Int {
        get { storage.withLock { $0.totalCostLimit } }
        set { setLimit(\.totalCostLimit, to: newValue) }
    }

    /// Sets one of the limits (negative means 0), then evicts what no longer fits.
    private func setLimit(_ limit: WritableKeyPath<Storage, Int>, to newValue: Int) {
        report(
            storage.withLock {
                $0[keyPath: limit] = max(0, newValue)
                return $0.trim()
            })
    }

    /// Whether a memory warning empties the cache (the default).
    public var evictsOnMemoryWarning: Bool {
        get { evictsOnWarning.withLock { $0 } }
        set { evictsOnWarning.withLock { $0 = newValue } }
    }

    /// How many entries the cache holds.
    public var count: Int { storage.withLock { $0.index.count } }

    /// The sum of the entries' costs.
    public var totalCost: Int { storage.withLock { $0.totalCost } }

    /// The keys from most to least recently used.
    public var keysByRecentUse: [Key] {
        storage.withLock { storage in
            var keys: [Key] = []
            var slot = storage.newest
            while slot >= 0 {
                keys.append(storage.nodes[slot]!.key)
                slot = storage.nodes[slot]!.older
            }
            return keys
        }
    }

    /// The value for `key`, which becomes the most recently used. Corresponds to
    /// `NSCache.object(forKey:)`.
    public func object(forKey key: Key) -> Value? {
        storage.withLock { storage in
            guard let slot = storage.index[key] else { return nil }
            if storage.newest != slot {
                storage.unlink(slot)
                storage.linkNewest(slot)
            }
            return storage.nodes[slot]!.value
        }
    }

    /// Stores `value` as the most recently used entry, replacing any under `key`, then
    /// evicts least recently used entries past the limits (the new one too, when its
    /// cost alone exceeds ``totalCostLimit``). Corresponds to
    /// `NSCache.setObject(_:forKey:cost:)`.
    public func setObject(_ value: Value, forKey key: Key, cost: Int = 0) {
        let cost = max(0, cost)
        let evicted = storage.withLock { storage in
            if let slot = storage.index[key] {
                storage.totalCost += cost - storage.nodes[slot]!.cost
                storage.nodes[slot]!.value = value
                storage.nodes[slot]!.cost = cost
                if storage.newest != slot {
                    storage.unlink(slot)
                    storage.linkNewest(slot)
                }
            } else {
                let node = Node(key: key, value: value, cost: cost, newer: -1, older: -1)
                let slot: Int
                if let reused = storage.free.popLast() {
                    storage.nodes[reused] = node
                    slot = reused
                } else {
                    storage.nodes.append(node)
                    slot = storage.nodes.count - 1
                }
                storage.index[key] = slot
                storage.totalCost += cost
                storage.linkNewest(slot)
            }
            return storage.trim()
        }
        report(evicted)
    }

    /// Removes the entry for `key`, returning its value. Corresponds to
    /// `NSCache.removeObject(forKey:)`.
    @discardableResult
    public func removeObject(forKey key: Key) -> Value? {
        storage.withLock { storage in
            guard let slot = storage.index[key] else { return nil }
            return storage.remove(slot).value
        }
    }

    /// Empties the cache. Corresponds to `NSCache.removeAllObjects()`.
    public func removeAllObjects() {
        _ = removeAll()
    }

    private func removeAll() -> [Node] {
        storage.withLock { storage in
            let nodes = storage.nodes.compactMap { $0 }
            storage = Storage(countLimit: storage.countLimit, totalCostLimit: storage.totalCostLimit)
            return nodes
        }
    }

    private func receiveMemoryWarning() {
        guard evictsOnMemoryWarning else { return }
        let nodes = removeAll()
        if let onEviction {
            for node in nodes { onEviction(node.key, node.value, .memoryWarning) }
        }
    }

    private func report(_ evicted: [(Key, Value, EvictionReason)]) {
        guard let onEviction else { return }
        for (key, value, reason) in evicted { onEviction(key, value, reason) }
    }
}

extension MemoryCache where Key == String {
    /// ``object(forKey:)`` with `NSCache`'s `NSString` key, as the books write it
    /// (`cache.object(forKey: key as NSString)`).
    public func object(forKey key: NSString) -> Value? {
        object(forKey: key as String)
    }

    /// ``setObject(_:forKey:cost:)`` with `NSCache`'s `NSString` key.
    public func setObject(_ value: Value, forKey key: NSString, cost: Int = 0) {
        setObject(value, forKey: key as String, cost: cost)
    }

    /// ``removeObject(forKey:)`` with `NSCache`'s `NSString` key.
    @discardableResult
    public func removeObject(forKey key: NSString) -> Value? {
        removeObject(forKey: key as String)
    }
}
