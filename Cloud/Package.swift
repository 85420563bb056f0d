// swift-tools-version: 6.0
// Keepsake beyond one machine: the ubiquitous key-value store (Apple's
// NSUbiquitousKeyValueStore) and an item store shared between processes, on PostgreSQL. A package of its own, so
// that a user of the library never resolves a database client.
import Foundation
import PackageDescription

// A path dependency is named after its folder, which differs between checkouts.
let keepsake = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "KeepsakeCloud",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "KeepsakeCloud", targets: ["KeepsakeCloud"]),
        // Run by `keepsake cloud`, which the library's CLI cannot be: it would pull in the
        // database client.
        .executable(name: "keepsake-cloud", targets: ["KeepsakeCloudCLI"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(path: "../Tests/TestSupport"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // What the stores log through, as postgres-nio does.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // The one database client runs as a service.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "KeepsakeCloud",
            dependencies: [
                .product(name: "PropertyList", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "AppStores", package: keepsake),
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "KeepsakeCloudCLI",
            dependencies: [
                "KeepsakeCloud",
                .product(name: "PropertyList", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "KeepsakeCommandLine", package: keepsake),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // One replica as a process of its own, for the convergence test.
        .executableTarget(
            name: "CloudTestReplica",
            dependencies: [
                "KeepsakeCloud",
                .product(name: "PropertyList", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "KeepsakeTestSupport", package: "TestSupport"),
            ],
            path: "Tests/Helpers/CloudTestReplica"
        ),
        .testTarget(
            name: "KeepsakeCloudTests",
            dependencies: [
                "KeepsakeCloud",
                .product(name: "AppRuntime", package: keepsake),
                .product(name: "AppStores", package: keepsake),
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PropertyList", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "KeepsakeTestSupport", package: "TestSupport"),
                // Rows written straight into the tables, as no replica would write them.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ]
)

// As in the library: each file imports what it uses, internally unless a public
// signature needs it.
for target in package.targets {
    target.swiftSettings = [
        .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
