import AppSandbox
import AppStores
import Benchmark
import BenchmarkData
import Foundation
import KeyedArchive

// The item store's save and load (keyed archive, durable atomic replace into
// Documents/items.archive) against the seeds' recipe on Foundation: NSKeyedArchiver's
// archive of the item array written atomically to a file (what
// archiveRootObject(_:toFile:) does), and NSKeyedUnarchiver reading it back. 1k, 10k
// and 100k Homepwner items, in one run. NSKeyedArchiver on Linux needs seconds for
// the larger sizes, so its benchmarks there run a single iteration.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        timeUnits: .milliseconds,
        maxDuration: .seconds(5),
        maxIterations: 20
    )
    let slow = Benchmark.Configuration(warmupIterations: 0, maxDuration: .seconds(1), maxIterations: 1)

    for count in [1_000, 10_000, 100_000] {
        let label = "\(count / 1_000)k"
        let records = StoreRecords.records(count: count)
        let container = try! AppContainer.temporary(identifier: "org.keepsake.store-bench")
        let store = try! ItemStore<StoreItem>(container: container)
        store.replaceAll(with: records.map(StoreItem.init))
        try! store.save()
        let theirs = records.map(FoundationItem.init)
        let theirFile = container.documentsDirectory.appendingPathComponent("foundation.archive")
        try! NSKeyedArchiver.archivedData(withRootObject: theirs, requiringSecureCoding: false).write(to: theirFile, options: .atomic)
        let foundationConfiguration = count >= 10_000 ? slow : Benchmark.defaultConfiguration

        Benchmark("item store save \(label) / keepsake") { _ in
            try store.save()
        }
        Benchmark("item store save \(label) / NSKeyedArchiver", configuration: foundationConfiguration) { _ in
            let data = try NSKeyedArchiver.archivedData(withRootObject: theirs, requiringSecureCoding: false)
            try data.write(to: theirFile, options: .atomic)
        }
        Benchmark("item store load \(label) / keepsake") { _ in
            blackHole(try ItemStore<StoreItem>(container: container).count)
        }
        Benchmark("item store load \(label) / NSKeyedUnarchiver", configuration: foundationConfiguration) { _ in
            let data = try Data(contentsOf: theirFile)
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = false
            blackHole((unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as! [FoundationItem]).count)
        }
    }
}
