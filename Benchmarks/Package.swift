// swift-tools-version: 6.1
// Benchmarks live in their own package so the library never depends on the harness.
// Run from this folder: swift package --allow-writing-to-package-directory benchmark
import Foundation
import PackageDescription

// A path dependency is named after its folder, which differs between checkouts.
let keepsake = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

/// Products of the library.
func library(_ names: String...) -> [Target.Dependency] {
    names.map { .product(name: $0, package: keepsake) }
}

/// A suite the ordo-one harness runs, in Benchmarks/NAME: the harness, the suites' shared
/// configurations and what it measures.
func benchmark(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchmarkSuite"] + dependencies,
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "KeepsakeBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(path: "../Cloud"),
        // The seeded generator the records are drawn from.
        .package(path: "../Tests/TestSupport"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Only the malloc interposer: the runtime interposer is not available here, and
        // the harness does not build without the malloc one.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "BenchmarkData",
            dependencies: library("PropertyList", "KeyedArchive")
                + [.product(name: "KeepsakeTestSupport", package: "TestSupport")]),
        // What the harness's suites share; apart from BenchmarkData, which the plain
        // timers use without the harness's allocator hooks.
        .target(name: "BenchmarkSuite", dependencies: [.product(name: "Benchmark", package: "benchmark")]),
        .executableTarget(name: "PlainRatios", dependencies: ["BenchmarkData"] + library("PropertyList")),
        // libplist, for PeerRatios: Debian's libplist-dev.
        .systemLibrary(name: "CLibPlist", pkgConfig: "libplist-2.0", providers: [.apt(["libplist-dev"])]),
        .executableTarget(name: "PeerRatios", dependencies: ["BenchmarkData", "CLibPlist"] + library("PropertyList")),
        // Foundation's archiver and unarchiver as whole processes, for scripts/unarchive-benchmark.sh.
        .executableTarget(name: "FoundationArchives", dependencies: ["BenchmarkData"]),
        .executableTarget(
            name: "InstructionCounts",
            dependencies: ["BenchmarkData"] + library("PropertyList", "KeyedArchive", "AppDefaults", "AppSandbox")
        ),
        // The cloud stores on PostgreSQL; scripts/cloud-benchmark.sh runs it.
        .executableTarget(
            name: "CloudRatios",
            dependencies: ["BenchmarkData", .product(name: "KeepsakeCloud", package: "Cloud")]
                + library("AppStores", "AppSandbox", "KeyedArchive", "PropertyList", "Locking")
                + [
                    .product(name: "PostgresNIO", package: "postgres-nio"),
                    .product(name: "Logging", package: "swift-log"),
                ]
        ),
        // What scripts/benchmark-thresholds.sh checks in CI against Thresholds/.
        benchmark("ThresholdBenchmarks", ["BenchmarkData"] + library("KeyedArchive", "PropertyList")),
        benchmark("PropertyListBenchmarks", ["BenchmarkData"] + library("PropertyList")),
        benchmark("KeyedArchiveBenchmarks", ["BenchmarkData"] + library("KeyedArchive")),
        benchmark("StoreBenchmarks", ["BenchmarkData"] + library("AppStores", "AppSandbox", "KeyedArchive", "Locking")),
        benchmark("CacheBenchmarks", library("AppStores")),
        benchmark("SandboxBenchmarks", library("AppSandbox")),
        benchmark("DefaultsBenchmarks", library("AppDefaults", "AppSandbox")),
    ]
)
