import Benchmark
import BenchmarkData
import KeyedArchive
import PropertyList

// The benchmarks CI checks against the thresholds committed in Thresholds/: small,
// fast, and measured in allocations, which do not swing with the machine as times do
// (this machine's perf counters read zero, so instructions are out). A change that
// allocates more, or fewer, than the committed count fails scripts/benchmark-thresholds.sh
// until `thresholds update` records the new count. Names are letters and digits only:
// the harness cannot match a name with spaces or `/` to its thresholds file.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.mallocCountTotal],
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 10,
        // Allocation counts repeat exactly between runs; 2% is room for the allocator
        // and the runtime, well below a change worth a look.
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 2.0])]
    )
    let records = HomepwnerModels.records(count: 1_000)
    let items = records.map(KeepsakeItem.init)
    let value = HomepwnerRecords.value(count: 1_000)

    Benchmark("KeyedArchiveEncode1k") { _ in
        blackHole(try KeyedArchiver.archivedData(withRootObject: items))
    }
    Benchmark("KeyedArchiveDecode1k") { benchmark in
        let archive = try KeyedArchiver.archivedData(withRootObject: items)
        benchmark.startMeasurement()
        blackHole(try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: KeepsakeItem.self, from: archive))
    }
    Benchmark("BinaryPlistWrite1k") { _ in
        blackHole(try PropertyListWriter.binary.write(value))
    }
    Benchmark("BinaryPlistRead1k") { benchmark in
        let bytes = try PropertyListWriter.binary.write(value)
        benchmark.startMeasurement()
        blackHole(try PropertyListReader().read(bytes))
    }
    Benchmark("XMLPlistRead1k") { benchmark in
        let bytes = try PropertyListWriter.xml.write(value)
        benchmark.startMeasurement()
        blackHole(try PropertyListReader().read(bytes))
    }
}
