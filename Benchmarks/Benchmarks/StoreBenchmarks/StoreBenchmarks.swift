import AppSandbox
import AppStores
import Benchmark
import BenchmarkData
import BenchmarkSuite
import Foundation
import KeyedArchive
import Locking

// The item store's save and load (keyed archive, durable atomic replace into
// Documents/items.archive, through the store's file backend: what `ItemStore.save()`
// and its initialiser run, without the hop to the main actor) against the seeds' recipe on Foundation: NSKeyedArchiver's
// archive of the item array written atomically to a file (what
// archiveRootObject(_:toFile:) does), and NSKeyedUnarchiver reading it back. 1k, 10k
// and 100k Homepwner items, in one run. NSKeyedArchiver on Linux needs seconds for
// the larger sizes, so its benchmarks there run a single iteration. The harness runs
// each benchmark in a process of its own, so fixtures are built lazily in `setup`:
// only the one a benchmark needs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .comparison(.milliseconds, maxIterations: 20)

    for count in [1_000, 10_000, 100_000] {
        let label = "\(count / 1_000)k"
        let foundationConfiguration = count >= 10_000 ? .singleRun : Benchmark.defaultConfiguration

        Benchmark(
            "item store save \(label) / keepsake",
            closure: { _ in
                let fixture = Fixtures.keepsake(count)
                try fixture.backend.saveItems(fixture.items)
            }, setup: { _ = Fixtures.keepsake(count) })
        Benchmark(
            "item store save \(label) / NSKeyedArchiver", configuration: foundationConfiguration,
            closure: { _ in
                let fixture = Fixtures.foundation(count)
                let data = try NSKeyedArchiver.archivedData(withRootObject: fixture.items, requiringSecureCoding: false)
                try data.write(to: fixture.file, options: .atomic)
            }, setup: { _ = Fixtures.foundation(count) })
        Benchmark(
            "item store load \(label) / keepsake",
            closure: { _ in
                blackHole(try Fixtures.keepsake(count).backend.loadItems().count)
            }, setup: { _ = Fixtures.keepsake(count) })
        Benchmark(
            "item store load \(label) / NSKeyedUnarchiver", configuration: foundationConfiguration,
            closure: { _ in
                let data = try Data(contentsOf: Fixtures.foundation(count).file)
                let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
                unarchiver.requiresSecureCoding = false
                blackHole((unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as! [FoundationItem]).count)
            }, setup: { _ = Fixtures.foundation(count) })
    }
}

/// Saved stores and archives, made once per process and size.
enum Fixtures {
    struct Keepsake: Sendable {
        let backend: ArchiveFileBackend<StoreItem>
        let items: [StoreItem]
    }

    /// `@unchecked Sendable`: the NSObject items are only read by the benchmark.
    struct Foundation: @unchecked Sendable {
        let items: [FoundationItem]
        let file: URL
    }

    private static let keepsakeFixtures = Locked<[Int: Keepsake]>([:])
    private static let foundationFixtures = Locked<[Int: Foundation]>([:])

    static func keepsake(_ count: Int) -> Keepsake {
        keepsakeFixtures.withLock { fixtures in
            if let fixture = fixtures[count] { return fixture }
            let container = try! AppContainer.temporary(identifier: "org.keepsake.store-bench")
            let fixture = Keepsake(
                backend: ArchiveFileBackend(container: container),
                items: HomepwnerModels.records(count: count).map(StoreItem.init))
            try! fixture.backend.saveItems(fixture.items)
            fixtures[count] = fixture
            return fixture
        }
    }

    static func foundation(_ count: Int) -> Foundation {
        foundationFixtures.withLock { fixtures in
            if let fixture = fixtures[count] { return fixture }
            let items = HomepwnerModels.records(count: count).map(FoundationItem.init)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "keepsake-store-bench-\(UUID()).archive")
            try! NSKeyedArchiver.archivedData(withRootObject: items, requiringSecureCoding: false).write(
                to: file, options: .atomic)
            let fixture = Foundation(items: items, file: file)
            fixtures[count] = fixture
            return fixture
        }
    }
}
