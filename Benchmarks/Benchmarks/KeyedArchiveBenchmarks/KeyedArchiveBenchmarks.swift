import Benchmark
import BenchmarkData
import BenchmarkSuite
import Foundation
import KeyedArchive

// Keepsake's keyed archiver against Foundation's NSKeyedArchiver, PropertyListEncoder
// and JSONEncoder on the same Homepwner items, 1k, 10k and 100k of them, in one run.
// The harness starts a process per benchmark, so each builds only the fixture it needs,
// in its setup. NSKeyedArchiver on Linux needs tens of seconds for 100k items, so its
// benchmarks at 10k and 100k run a single iteration.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .comparison(
        .microseconds, alsoCounting: [.mallocCountTotal], maxDuration: .seconds(10), maxIterations: 20)

    for count in [1_000, 10_000, 100_000] {
        let label = "\(count / 1_000)k"
        let fixture = { Fixtures.shared.fixture(count) }
        let foundation = count >= 10_000 ? .singleRun : Benchmark.defaultConfiguration

        Benchmark("encode \(label) / keepsake") { _ in
            blackHole(try KeyedArchiver.archivedData(withRootObject: fixture().ours))
        } setup: {
            _ = fixture().ours
        }
        Benchmark("encode \(label) / NSKeyedArchiver", configuration: foundation) { _ in
            blackHole(try NSKeyedArchiver.archivedData(withRootObject: fixture().theirs, requiringSecureCoding: false))
        } setup: {
            _ = fixture().theirs
        }
        Benchmark("encode \(label) / PropertyListEncoder") { _ in
            blackHole(try PropertyListEncoder().encode(fixture().codable))
        } setup: {
            _ = fixture().codable
        }
        Benchmark("encode \(label) / JSONEncoder") { _ in
            blackHole(try JSONEncoder().encode(fixture().codable))
        } setup: {
            _ = fixture().codable
        }
        Benchmark("decode \(label) / keepsake") { _ in
            blackHole(
                try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: KeepsakeItem.self, from: fixture().ourArchive))
        } setup: {
            _ = fixture().ourArchive
        }
        Benchmark("decode \(label) / NSKeyedUnarchiver", configuration: foundation) { _ in
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: fixture().theirArchive)
            unarchiver.requiresSecureCoding = false
            blackHole(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as! [FoundationItem])
        } setup: {
            _ = fixture().theirArchive
        }
        Benchmark("decode \(label) / PropertyListDecoder") { _ in
            blackHole(try PropertyListDecoder().decode([CodableItem].self, from: fixture().plist))
        } setup: {
            _ = fixture().plist
        }
        Benchmark("decode \(label) / JSONDecoder") { _ in
            blackHole(try JSONDecoder().decode([CodableItem].self, from: fixture().json))
        } setup: {
            _ = fixture().json
        }
    }
}

/// The items and archives of one size, each made on first use.
final class Fixture {
    let records: [HomepwnerModels.Record]
    lazy var ours = records.map(KeepsakeItem.init)
    lazy var theirs = records.map(FoundationItem.init)
    lazy var codable = records.map(CodableItem.init)
    lazy var ourArchive = try! KeyedArchiver.archivedData(withRootObject: ours)
    lazy var theirArchive = try! NSKeyedArchiver.archivedData(withRootObject: theirs, requiringSecureCoding: false)
    lazy var plist = try! PropertyListEncoder().encode(codable)
    lazy var json = try! JSONEncoder().encode(codable)

    init(count: Int) {
        records = HomepwnerModels.records(count: count)
    }
}

/// One fixture per size. The harness runs a benchmark's setup and iterations on one
/// thread, which is why the unsynchronised state is safe.
final class Fixtures: @unchecked Sendable {
    static let shared = Fixtures()
    private var bySize: [Int: Fixture] = [:]

    func fixture(_ count: Int) -> Fixture {
        if let fixture = bySize[count] { return fixture }
        let fixture = Fixture(count: count)
        bySize[count] = fixture
        return fixture
    }
}
