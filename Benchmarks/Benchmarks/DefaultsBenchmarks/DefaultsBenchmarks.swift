import AppDefaults
import AppSandbox
import Benchmark
import BenchmarkSuite
import Foundation

// Keepsake's Defaults against Foundation's UserDefaults on the same 1,000 keys in the
// same run: reading them, setting them, and setting them then saving (flush against
// synchronize; Foundation on Linux saves nothing without synchronize). Both write into
// a scratch folder: HOME and XDG_CONFIG_HOME point there before Foundation starts.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .comparison(.microseconds, maxIterations: 500)
    // One fixed folder, emptied at every start: the harness starts this process several times.
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-defaults-bench")
    try? FileManager.default.removeItem(at: scratch)
    try! FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    setenv("HOME", scratch.path, 1)
    setenv("XDG_CONFIG_HOME", scratch.appendingPathComponent(".config").path, 1)

    let keys = (0..<1_000).map { "key-\($0)" }
    var configuration = Defaults.Configuration()
    configuration.arguments = []
    configuration.externalChangeInterval = nil
    configuration.writeDelay = .seconds(3_600)  // saves only where a case asks for them
    let container = try! AppContainer(identifier: "org.keepsake.bench", containersDirectory: scratch)
    let ours = Defaults(container: container, configuration: configuration)
    let theirs = UserDefaults(suiteName: "org.keepsake.bench.foundation")!
    for (index, key) in keys.enumerated() {
        ours.set(index, forKey: key)
        theirs.set(index, forKey: key)
    }
    try! ours.flush()
    theirs.synchronize()

    Benchmark("get 1,000 keys / keepsake") { _ in
        var sum = 0
        for key in keys { sum &+= ours.integer(forKey: key) }
        blackHole(sum)
    }
    Benchmark("get 1,000 keys / Foundation") { _ in
        var sum = 0
        for key in keys { sum &+= theirs.integer(forKey: key) }
        blackHole(sum)
    }
    Benchmark("set 1,000 keys / keepsake") { benchmark in
        for (index, key) in keys.enumerated() { ours.set(index &+ benchmark.currentIteration, forKey: key) }
    }
    Benchmark("set 1,000 keys / Foundation") { benchmark in
        for (index, key) in keys.enumerated() { theirs.set(index &+ benchmark.currentIteration, forKey: key) }
    }
    Benchmark("set 1,000 keys and persist / keepsake") { benchmark in
        for (index, key) in keys.enumerated() { ours.set(index &+ benchmark.currentIteration, forKey: key) }
        try ours.flush()
    }
    Benchmark("set 1,000 keys and persist / Foundation") { benchmark in
        for (index, key) in keys.enumerated() { theirs.set(index &+ benchmark.currentIteration, forKey: key) }
        theirs.synchronize()
    }
}
