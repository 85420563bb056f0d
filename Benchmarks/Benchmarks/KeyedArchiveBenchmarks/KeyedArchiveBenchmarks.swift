import Benchmark
import Foundation
import KeyedArchive

// Keepsake's keyed archiver against Foundation's NSKeyedArchiver, PropertyListEncoder
// and JSONEncoder on the same Homepwner items, 1k, 10k and 100k of them, in one run.
// NSKeyedArchiver on Linux needs tens of seconds for 100k items, so its benchmarks
// run a single iteration.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .milliseconds,
        maxDuration: .seconds(10),
        maxIterations: 20
    )
    let slow = Benchmark.Configuration(warmupIterations: 0, maxDuration: .seconds(1), maxIterations: 1)

    for count in [1_000, 10_000, 100_000] {
        let label = "\(count / 1_000)k"
        let records = HomepwnerModels.records(count: count)
        let ours = records.map(KeepsakeItem.init)
        let theirs = records.map(FoundationItem.init)
        let codable = records.map(CodableItem.init)

        let ourArchive = try! KeyedArchiver.archivedData(withRootObject: ours)
        let theirArchive = try! NSKeyedArchiver.archivedData(withRootObject: theirs, requiringSecureCoding: false)
        let plist = try! PropertyListEncoder().encode(codable)
        let json = try! JSONEncoder().encode(codable)
        let foundationConfiguration = count >= 10_000 ? slow : Benchmark.defaultConfiguration

        Benchmark("encode \(label) / keepsake") { _ in
            blackHole(try KeyedArchiver.archivedData(withRootObject: ours))
        }
        Benchmark("encode \(label) / NSKeyedArchiver", configuration: foundationConfiguration) { _ in
            blackHole(try NSKeyedArchiver.archivedData(withRootObject: theirs, requiringSecureCoding: false))
        }
        Benchmark("encode \(label) / PropertyListEncoder") { _ in
            blackHole(try PropertyListEncoder().encode(codable))
        }
        Benchmark("encode \(label) / JSONEncoder") { _ in
            blackHole(try JSONEncoder().encode(codable))
        }
        Benchmark("decode \(label) / keepsake") { _ in
            blackHole(try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: KeepsakeItem.self, from: ourArchive))
        }
        Benchmark("decode \(label) / NSKeyedUnarchiver", configuration: foundationConfiguration) { _ in
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: theirArchive)
            unarchiver.requiresSecureCoding = false
            blackHole(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as! [FoundationItem])
        }
        Benchmark("decode \(label) / PropertyListDecoder") { _ in
            blackHole(try PropertyListDecoder().decode([CodableItem].self, from: plist))
        }
        Benchmark("decode \(label) / JSONDecoder") { _ in
            blackHole(try JSONDecoder().decode([CodableItem].self, from: json))
        }
    }
}
