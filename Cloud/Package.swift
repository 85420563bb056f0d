// swift-tools-version: 6.0
// Keepsake beyond one machine: the ubiquitous key-value store (Apple's
// NSUbiquitousKeyValueStore) and an item store shared between processes, on PostgreSQL. A package of its own, so
// that a user of the library never resolves a database client.
import Foundation
import PackageDescription

// A path dependency is named after its folder, which differs between checkouts.
let keepsake = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

/// Products of the library.
func library(_ names: String...) -> [Target.Dependency] {
    names.map { .product(name: $0, package: keepsake) }
}

let postgres = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let testSupport = Target.Dependency.product(name: "KeepsakeTestSupport", package: "TestSupport")

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
            dependencies: library("PropertyList", "AppSandbox", "AppStores", "KeyedArchive", "Locking")
                + [postgres, logging, serviceLifecycle]
        ),
        .executableTarget(
            name: "KeepsakeCloudCLI",
            dependencies: ["KeepsakeCloud", .product(name: "ArgumentParser", package: "swift-argument-parser")]
                + library("PropertyList", "AppSandbox", "KeepsakeCommandLine")
        ),
        // One replica as a process of its own, for the convergence test.
        .executableTarget(
            name: "CloudTestReplica",
            dependencies: ["KeepsakeCloud", testSupport] + library("PropertyList", "AppSandbox"),
            path: "Tests/Helpers/CloudTestReplica"
        ),
        .testTarget(
            name: "KeepsakeCloudTests",
            // PostgresNIO: rows written straight into the tables, as no replica would write them.
            dependencies: ["KeepsakeCloud", testSupport, logging, serviceLifecycle, postgres]
                + library("AppRuntime", "AppStores", "KeyedArchive", "PropertyList", "AppSandbox", "Locking")
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
