public import Benchmark

extension Benchmark.Configuration {
    /// How the comparison suites measure: wall-clock time (and, where asked, the
    /// allocations) in `units`, for at most `maxIterations` runs or `maxDuration`.
    public static func comparison(
        _ units: BenchmarkTimeUnits, alsoCounting extra: [BenchmarkMetric] = [], maxDuration: Duration = .seconds(5),
        maxIterations: Int
    ) -> Self {
        .init(metrics: [.wallClock] + extra, timeUnits: units, maxDuration: maxDuration, maxIterations: maxIterations)
    }

    /// One cold run: Foundation's side of the larger sizes takes seconds on Linux.
    public static var singleRun: Self { Self(warmupIterations: 0, maxDuration: .seconds(1), maxIterations: 1) }
}
