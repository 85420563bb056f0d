import AppStores
import Benchmark
import BenchmarkSuite
import Foundation

// MemoryCache (LRU, count and cost limits, one lock) against Foundation's NSCache on
// the same keys and values, in one run: filling past the count limit (evictions on
// every insert), reading hits, and a mixed read/write pass over a working set twice
// the limit. Each benchmark iteration does 100k operations.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .comparison(.milliseconds, maxIterations: 50)
    let operations = 100_000
    let limit = 10_000
    let keys = (0..<(2 * limit)).map { "image-\($0)" }
    let nsKeys = keys.map { $0 as NSString }
    let payload = Data(repeating: 7, count: 64)
    let nsPayload = payload as NSData

    Benchmark("cache set 100k, limit 10k / keepsake") { _ in
        let cache = MemoryCache<String, Data>(countLimit: limit)
        for index in 0..<operations { cache.setObject(payload, forKey: keys[index % keys.count], cost: 64) }
        blackHole(cache.count)
    }
    Benchmark("cache set 100k, limit 10k / NSCache") { _ in
        let cache = NSCache<NSString, NSData>()
        cache.countLimit = limit
        for index in 0..<operations { cache.setObject(nsPayload, forKey: nsKeys[index % nsKeys.count], cost: 64) }
        blackHole(cache)
    }

    let warm = MemoryCache<String, Data>(countLimit: limit)
    let nsWarm = NSCache<NSString, NSData>()
    nsWarm.countLimit = limit
    for index in 0..<limit {
        warm.setObject(payload, forKey: keys[index])
        nsWarm.setObject(nsPayload, forKey: nsKeys[index])
    }
    Benchmark("cache get 100k hits / keepsake") { _ in
        var found = 0
        for index in 0..<operations where warm.object(forKey: keys[index % limit]) != nil { found += 1 }
        blackHole(found)
    }
    Benchmark("cache get 100k hits / NSCache") { _ in
        var found = 0
        for index in 0..<operations where nsWarm.object(forKey: nsKeys[index % limit]) != nil { found += 1 }
        blackHole(found)
    }

    Benchmark("cache get-or-set 100k, working set 2x limit / keepsake") { _ in
        let cache = MemoryCache<String, Data>(countLimit: limit)
        var state: UInt64 = 42
        for _ in 0..<operations {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = keys[Int(state >> 33) % keys.count]
            if cache.object(forKey: key) == nil { cache.setObject(payload, forKey: key) }
        }
        blackHole(cache.count)
    }
    Benchmark("cache get-or-set 100k, working set 2x limit / NSCache") { _ in
        let cache = NSCache<NSString, NSData>()
        cache.countLimit = limit
        var state: UInt64 = 42
        for _ in 0..<operations {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = nsKeys[Int(state >> 33) % nsKeys.count]
            if cache.object(forKey: key) == nil { cache.setObject(nsPayload, forKey: key) }
        }
        blackHole(cache)
    }
}
