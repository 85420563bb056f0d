import Benchmark
import BenchmarkData
import Foundation
import PropertyList

// Each pair runs Keepsake and Foundation's PropertyListSerialization on the same
// 100k Homepwner records in the same run; scripts/benchmark-ratios.py turns the
// medians into ratios for BENCHMARKS.md.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .milliseconds,
        maxDuration: .seconds(10),
        maxIterations: 20
    )
    let count = 100_000
    let value = HomepwnerRecords.value(count: count)
    let object = HomepwnerRecords.foundationObject(count: count)
    let binary = try! PropertyListWriter.binary.write(value)
    let xml = try! PropertyListWriter.xml.write(value)
    let binaryData = Data(binary)
    let xmlData = Data(xml)

    Benchmark("binary read 100k / keepsake") { benchmark in
        blackHole(try PropertyListReader().read(binary))
    }
    Benchmark("binary read 100k / Foundation") { benchmark in
        blackHole(try PropertyListSerialization.propertyList(from: binaryData, format: nil))
    }
    Benchmark("binary write 100k / keepsake") { benchmark in
        blackHole(try PropertyListWriter.binary.write(value))
    }
    Benchmark("binary write 100k / Foundation") { benchmark in
        blackHole(try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0))
    }
    Benchmark("xml read 100k / keepsake") { benchmark in
        blackHole(try PropertyListReader().read(xml))
    }
    Benchmark("xml read 100k / Foundation") { benchmark in
        blackHole(try PropertyListSerialization.propertyList(from: xmlData, format: nil))
    }
    Benchmark("xml write 100k / keepsake") { benchmark in
        blackHole(try PropertyListWriter.xml.write(value))
    }
    Benchmark("xml write 100k / Foundation") { benchmark in
        blackHole(try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0))
    }
}
