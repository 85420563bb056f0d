import AppSandbox
import Benchmark
import BenchmarkSuite
import Foundation

// Durable atomic replace (temp file, fsync, rename, fsync of the directory, with a
// hard-linked rollback copy) against Foundation's Data.write(options: .atomic), which
// skips the directory fsync. Same sizes, same folder, same run.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .comparison(.microseconds, maxIterations: 200)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-bench-\(UUID())")
    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (label, size) in [("4 KB", 4 << 10), ("1 MB", 1 << 20), ("32 MB", 32 << 20)] {
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let ours = folder.appendingPathComponent("keepsake-\(size)")
        let theirs = folder.appendingPathComponent("foundation-\(size)")
        Benchmark("durable write \(label) / keepsake") { _ in
            try FileSystem.default.write(data, to: ours)
        }
        Benchmark("durable write \(label) / Foundation") { _ in
            try data.write(to: theirs, options: .atomic)
        }
    }
}
