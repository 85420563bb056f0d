import Benchmark
import Foundation
import KeyedArchive

// Keepsake's keyed archiver against Foundation's NSKeyedArchiver, PropertyListEncoder
// and JSONEncoder on the same Homepwner items, 1k, 10k and 100k of them, in one run.
// NSKeyedArchiver on Linux needs tens of seconds for 100k items, so its benchmarks
// run a single iteration, and every input is made only by the benchmarks that read it
// (the harness starts a process per benchmark).
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
        let inputs = Inputs(count: count)
        let foundationConfiguration = count >= 10_000 ? slow : Benchmark.defaultConfiguration

        Benchmark("encode \(label) / keepsake", closure: { _ in
            blackHole(try KeyedArchiver.archivedData(withRootObject: inputs.ours))
        }, setup: { _ = inputs.ours })
        Benchmark("encode \(label) / NSKeyedArchiver", configuration: foundationConfiguration, closure: { _ in
            blackHole(try NSKeyedArchiver.archivedData(withRootObject: inputs.theirs, requiringSecureCoding: false))
        }, setup: { _ = inputs.theirs })
        Benchmark("encode \(label) / PropertyListEncoder", closure: { _ in
            blackHole(try PropertyListEncoder().encode(inputs.codable))
        }, setup: { _ = inputs.codable })
        Benchmark("encode \(label) / JSONEncoder", closure: { _ in
            blackHole(try JSONEncoder().encode(inputs.codable))
        }, setup: { _ = inputs.codable })
        Benchmark("decode \(label) / keepsake", closure: { _ in
            blackHole(try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: KeepsakeItem.self, from: inputs.ourArchive))
        }, setup: { _ = inputs.ourArchive })
        Benchmark("decode \(label) / NSKeyedUnarchiver", configuration: foundationConfiguration, closure: { _ in
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: inputs.theirArchive)
            unarchiver.requiresSecureCoding = false
            blackHole(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as! [FoundationItem])
        }, setup: { _ = inputs.theirArchive })
        Benchmark("decode \(label) / PropertyListDecoder", closure: { _ in
            blackHole(try PropertyListDecoder().decode([CodableItem].self, from: inputs.plist))
        }, setup: { _ = inputs.plist })
        Benchmark("decode \(label) / JSONDecoder", closure: { _ in
            blackHole(try JSONDecoder().decode([CodableItem].self, from: inputs.json))
        }, setup: { _ = inputs.json })
    }
}

/// One size's inputs, each made on first use: a benchmark process builds only what the
/// benchmark it runs reads (set-up hooks touch them before timing starts).
final class Inputs: @unchecked Sendable {
    let records: [HomepwnerModels.Record]
    init(count: Int) { records = HomepwnerModels.records(count: count) }

    lazy var ours = records.map(KeepsakeItem.init)
    lazy var theirs = records.map(FoundationItem.init)
    lazy var codable = records.map(CodableItem.init)
    lazy var ourArchive = try! KeyedArchiver.archivedData(withRootObject: ours)
    lazy var theirArchive = try! NSKeyedArchiver.archivedData(withRootObject: theirs, requiringSecureCoding: false)
    lazy var plist = try! PropertyListEncoder().encode(codable)
    lazy var json = try! JSONEncoder().encode(codable)
}
