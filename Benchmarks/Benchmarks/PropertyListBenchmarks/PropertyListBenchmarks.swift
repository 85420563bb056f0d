import Benchmark
import BenchmarkData
import BenchmarkSuite
import Foundation
import PropertyList

// Each pair runs Keepsake and Foundation's PropertyListSerialization on the same
// 100k Homepwner records in the same run; scripts/benchmark-ratios.py turns the
// medians into ratios for BENCHMARKS.md. The harness starts a process per benchmark,
// and each builds only the inputs it reads, in its setup: building the other side's
// inputs first (100k Foundation dictionaries from a freed value tree) leaves a
// fragmented heap that slows every later allocation, ours and Foundation's alike.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .comparison(
        .milliseconds, alsoCounting: [.mallocCountTotal], maxDuration: .seconds(10), maxIterations: 20)
    let inputs = { Inputs.shared }

    Benchmark("binary read 100k / keepsake") { _ in
        blackHole(try PropertyListReader().read(inputs().binary))
    } setup: {
        _ = inputs().binary
    }
    Benchmark("binary read 100k / Foundation") { _ in
        blackHole(try PropertyListSerialization.propertyList(from: inputs().binaryData, format: nil))
    } setup: {
        _ = inputs().binaryData
    }
    Benchmark("binary write 100k / keepsake") { _ in
        blackHole(try PropertyListWriter.binary.write(inputs().value))
    } setup: {
        _ = inputs().value
    }
    Benchmark("binary write 100k / Foundation") { _ in
        blackHole(try PropertyListSerialization.data(fromPropertyList: inputs().object, format: .binary, options: 0))
    } setup: {
        _ = inputs().object
    }
    Benchmark("xml read 100k / keepsake") { _ in
        blackHole(try PropertyListReader().read(inputs().xml))
    } setup: {
        _ = inputs().xml
    }
    Benchmark("xml read 100k / Foundation") { _ in
        blackHole(try PropertyListSerialization.propertyList(from: inputs().xmlData, format: nil))
    } setup: {
        _ = inputs().xmlData
    }
    Benchmark("xml write 100k / keepsake") { _ in
        blackHole(try PropertyListWriter.xml.write(inputs().value))
    } setup: {
        _ = inputs().value
    }
    Benchmark("xml write 100k / Foundation") { _ in
        blackHole(try PropertyListSerialization.data(fromPropertyList: inputs().object, format: .xml, options: 0))
    } setup: {
        _ = inputs().object
    }
}

/// The 100k records in every form a benchmark reads, each made on first use. The
/// harness runs a benchmark's setup and iterations on one thread, which is why the
/// unsynchronised state is safe.
final class Inputs: @unchecked Sendable {
    static let shared = Inputs()
    let count = 100_000

    lazy var value = HomepwnerRecords.value(count: count)
    lazy var object = HomepwnerRecords.foundationObject(count: count)
    lazy var binary = try! PropertyListWriter.binary.write(value)
    lazy var xml = try! PropertyListWriter.xml.write(value)
    lazy var binaryData = Data(binary)
    lazy var xmlData = Data(xml)
}
