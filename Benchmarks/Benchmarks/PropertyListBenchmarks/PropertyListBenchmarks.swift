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

    for (name, format, theirs) in [
        ("binary", PropertyListFormat.binary, PropertyListSerialization.PropertyListFormat.binary), ("xml", .xml, .xml),
    ] {
        Benchmark("\(name) read 100k / keepsake") { _ in
            blackHole(try PropertyListReader().read(inputs().bytes(format)))
        } setup: {
            _ = inputs().bytes(format)
        }
        Benchmark("\(name) read 100k / Foundation") { _ in
            blackHole(try PropertyListSerialization.propertyList(from: inputs().data(format), format: nil))
        } setup: {
            _ = inputs().data(format)
        }
        Benchmark("\(name) write 100k / keepsake") { _ in
            blackHole(try PropertyListWriter(format: format).write(inputs().value))
        } setup: {
            _ = inputs().value
        }
        Benchmark("\(name) write 100k / Foundation") { _ in
            blackHole(try PropertyListSerialization.data(fromPropertyList: inputs().object, format: theirs, options: 0))
        } setup: {
            _ = inputs().object
        }
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

    /// The records written in `format` (binary or XML), as bytes and as `Data`.
    func bytes(_ format: PropertyListFormat) -> [UInt8] { format == .xml ? xml : binary }
    func data(_ format: PropertyListFormat) -> Data { format == .xml ? xmlData : binaryData }
}
