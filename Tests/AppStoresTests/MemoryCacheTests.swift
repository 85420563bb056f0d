import AppLifecycle
@_spi(Testing) import AppRuntime
import AppSandbox
import Foundation
import Locking
import Testing

@testable import AppStores

@Suite @MainActor struct MemoryCacheTests {
    typealias Eviction = (key: String, reason: MemoryCache<String, Int>.EvictionReason)

    final class Evictions: Sendable {
        let log = Locked<[String]>([])
        var all: [String] { log.withLock { $0 } }
        var handler: MemoryCache<String, Int>.EvictionHandler {
            { key, _, reason in self.log.withLock { $0.append("\(key):\(reason.rawValue)") } }
        }
    }

    @Test func leastRecentlyUsedGoesFirst() {
        let evictions = Evictions()
        let cache = MemoryCache<String, Int>(
            countLimit: 3, notificationCenter: NotificationCenter(), onEviction: evictions.handler)
        cache.setObject(1, forKey: "a")
        cache.setObject(2, forKey: "b")
        cache.setObject(3, forKey: "c")
        #expect(cache.object(forKey: "a") == 1)  // a is now the most recent
        cache.setObject(4, forKey: "d")  // b is the least recent
        #expect(cache.object(forKey: "b") == nil, "the least recently used entry must be evicted, not the newest")
        #expect(cache.keysByRecentUse == ["d", "a", "c"])
        cache.setObject(5, forKey: "e")
        #expect(cache.keysByRecentUse == ["e", "d", "a"])
        #expect(evictions.all == ["b:countLimit", "c:countLimit"])
    }

    @Test func replacingAValueRefreshesIt() {
        let cache = MemoryCache<String, Int>(countLimit: 2, notificationCenter: NotificationCenter())
        cache.setObject(1, forKey: "a")
        cache.setObject(2, forKey: "b")
        cache.setObject(10, forKey: "a")
        cache.setObject(3, forKey: "c")
        #expect(cache.object(forKey: "a") == 10)
        #expect(cache.object(forKey: "b") == nil)
        #expect(cache.count == 2)
    }

    @Test func totalCostLimitEvictsUntilUnder() {
        let evictions = Evictions()
        let cache = MemoryCache<String, Int>(
            totalCostLimit: 100, notificationCenter: NotificationCenter(), onEviction: evictions.handler)
        cache.setObject(1, forKey: "a", cost: 40)
        cache.setObject(2, forKey: "b", cost: 40)
        cache.setObject(3, forKey: "c", cost: 30)  // 110 > 100: a goes
        #expect(cache.totalCost == 70)
        #expect(cache.keysByRecentUse == ["c", "b"])
        cache.setObject(4, forKey: "b", cost: 90)  // replace: 120 > 100, c goes
        #expect(cache.totalCost == 90)
        #expect(evictions.all == ["a:totalCostLimit", "c:totalCostLimit"])
        cache.setObject(5, forKey: "huge", cost: 500)
        #expect(cache.count == 0, "an entry costing more than the limit does not stay")
        #expect(cache.totalCost == 0)
    }

    @Test func loweringALimitEvictsAtOnce() {
        let cache = MemoryCache<String, Int>(notificationCenter: NotificationCenter())
        for index in 0..<10 { cache.setObject(index, forKey: "\(index)", cost: 10) }
        cache.countLimit = 4
        #expect(cache.keysByRecentUse == ["9", "8", "7", "6"])
        cache.totalCostLimit = 25
        #expect(cache.keysByRecentUse == ["9", "8"])
    }

    @Test func removingIsNotAnEviction() {
        let evictions = Evictions()
        let cache = MemoryCache<String, Int>(notificationCenter: NotificationCenter(), onEviction: evictions.handler)
        cache.setObject(1, forKey: "a", cost: 5)
        cache.setObject(2, forKey: "b", cost: 5)
        #expect(cache.removeObject(forKey: "a") == 1)
        #expect(cache.removeObject(forKey: "a") == nil)
        #expect(cache.totalCost == 5)
        cache.removeAllObjects()
        #expect(cache.count == 0 && cache.totalCost == 0)
        #expect(evictions.all.isEmpty)
    }

    @Test func simulatedMemoryWarningEmptiesTheCache() {
        let center = NotificationCenter()
        let evictions = Evictions()
        let cache = MemoryCache<String, Int>(notificationCenter: center, onEviction: evictions.handler)
        cache.setObject(1, forKey: "a")
        cache.setObject(2, forKey: "b")
        let app = Application(scheduler: ManualScheduler(), notificationCenter: center)
        app.launch()
        app.simulateMemoryWarning()
        #expect(cache.count == 0)
        #expect(Set(evictions.all) == ["a:memoryWarning", "b:memoryWarning"])
        // The cache is usable afterwards.
        cache.setObject(3, forKey: "c")
        #expect(cache.object(forKey: "c") == 3)
    }

    @Test func optingOutKeepsEntries() {
        let center = NotificationCenter()
        let cache = MemoryCache<String, Int>(notificationCenter: center)
        cache.evictsOnMemoryWarning = false
        cache.setObject(1, forKey: "a")
        MemoryWarning.post(to: center)
        #expect(cache.object(forKey: "a") == 1)
        cache.evictsOnMemoryWarning = true
        MemoryWarning.post(to: center)
        #expect(cache.object(forKey: "a") == nil)
    }

    @Test func warningsOnAnotherCenterAreNotSeen() {
        let cache = MemoryCache<String, Int>(notificationCenter: NotificationCenter())
        cache.setObject(1, forKey: "a")
        MemoryWarning.post(to: NotificationCenter())
        #expect(cache.count == 1)
    }

    @Test func concurrentUseKeepsTheBookkeepingConsistent() async {
        let cache = MemoryCache<Int, Int>(countLimit: 50, totalCostLimit: 400, notificationCenter: NotificationCenter())
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for step in 0..<2_000 {
                        let key = (worker * 31 + step * 7) % 120
                        switch step % 4 {
                        case 0, 1: cache.setObject(key, forKey: key, cost: key % 13)
                        case 2: if let value = cache.object(forKey: key) { #expect(value == key) }
                        default: cache.removeObject(forKey: key)
                        }
                    }
                }
            }
        }
        let keys = cache.keysByRecentUse
        #expect(keys.count == cache.count)
        #expect(Set(keys).count == keys.count)
        #expect(cache.count <= 50)
        #expect(cache.totalCost == keys.reduce(0) { $0 + $1 % 13 })
        #expect(cache.totalCost <= 400)
    }
}
