// swift-tools-version: 6.1
// Benchmarks live in their own package so the library never depends on the harness.
// Run from this folder: swift package --allow-writing-to-package-directory benchmark
import Foundation
import PackageDescription

// A path dependency is named after its folder, which differs between checkouts.
let keepsake = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "KeepsakeBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(path: "../Cloud"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Only the malloc interposer: the runtime interposer is not available here, and
        // the harness does not build without the malloc one.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "BenchmarkData",
            dependencies: [
                .product(name: "PropertyList", package: keepsake),
                .product(name: "KeyedArchive", package: keepsake),
            ]
        ),
        .executableTarget(
            name: "PlainRatios",
            dependencies: ["BenchmarkData", .product(name: "PropertyList", package: keepsake)]
        ),
        // libplist, for PeerRatios: Debian's libplist-dev.
        .systemLibrary(name: "CLibPlist", pkgConfig: "libplist-2.0", providers: [.apt(["libplist-dev"])]),
        .executableTarget(
            name: "PeerRatios",
            dependencies: ["BenchmarkData", "CLibPlist", .product(name: "PropertyList", package: keepsake)]
        ),
        .executableTarget(
            name: "InstructionCounts",
            dependencies: [
                "BenchmarkData",
                .product(name: "PropertyList", package: keepsake),
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "AppDefaults", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
            ]
        ),
        // The cloud stores on PostgreSQL; scripts/cloud-benchmark.sh runs it.
        .executableTarget(
            name: "CloudRatios",
            dependencies: [
                "BenchmarkData",
                .product(name: "KeepsakeCloud", package: "Cloud"),
                .product(name: "AppStores", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "PropertyList", package: keepsake),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What scripts/benchmark-thresholds.sh checks in CI against Thresholds/.
        .executableTarget(
            name: "ThresholdBenchmarks",
            dependencies: [
                "BenchmarkData",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "PropertyList", package: keepsake),
            ],
            path: "Benchmarks/ThresholdBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PropertyListBenchmarks",
            dependencies: [
                "BenchmarkData",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PropertyList", package: keepsake),
            ],
            path: "Benchmarks/PropertyListBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "KeyedArchiveBenchmarks",
            dependencies: [
                "BenchmarkData",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "KeyedArchive", package: keepsake),
            ],
            path: "Benchmarks/KeyedArchiveBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                "BenchmarkData",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AppStores", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "KeyedArchive", package: keepsake),
            ],
            path: "Benchmarks/StoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "CacheBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AppStores", package: keepsake),
            ],
            path: "Benchmarks/CacheBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "SandboxBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AppSandbox", package: keepsake),
            ],
            path: "Benchmarks/SandboxBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "DefaultsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AppDefaults", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
            ],
            path: "Benchmarks/DefaultsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
