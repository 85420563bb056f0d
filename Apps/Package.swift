// swift-tools-version: 6.1
// The reference apps, in a package of their own so that the library never depends on a
// web server: Homepwner (a web app on Hummingbird) and FoodTracker (a command).
// Run from the repository root: swift run --package-path Apps homepwner
import Foundation
import PackageDescription

// A path dependency is named after its folder, which differs between checkouts.
let keepsake = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

/// Products of the library.
func library(_ names: String...) -> [Target.Dependency] {
    names.map { .product(name: $0, package: keepsake) }
}

/// Sharing through PostgreSQL, in the build with the Database trait only.
let cloud = Target.Dependency.product(name: "KeepsakeCloud", package: "Cloud", condition: .when(traits: ["Database"]))
let testSupport = Target.Dependency.product(name: "KeepsakeTestSupport", package: "TestSupport")

/// A seed's code ported with the README's porting table only, kept as the book writes it
/// (Original/ holds the unported code the edits are counted against). The books' code is
/// Swift 5 code, and is compiled as such.
func port(_ name: String) -> Target {
    .executableTarget(
        name: "\(name)Port",
        dependencies: library("Keepsake"),
        path: "Ports/\(name)",
        exclude: ["Original"],
        swiftSettings: [.swiftLanguageMode(.v5)]
    )
}

let package = Package(
    name: "KeepsakeApps",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "homepwner", targets: ["Homepwner"]),
        .executable(name: "foodtracker", targets: ["FoodTracker"]),
    ],
    // The default build compiles no database client and no TLS, so a first
    // `swift run --package-path Apps homepwner` builds only the web server;
    // `--traits Database` adds sharing through PostgreSQL (homepwner --database).
    traits: [
        .trait(
            name: "Database",
            description: "Share Homepwner and FoodTracker through PostgreSQL (KeepsakeCloud, postgres-nio).")
    ],
    dependencies: [
        .package(path: ".."),
        .package(path: "../Tests/TestSupport"),
        .package(path: "../Cloud"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Each app is a library with everything testable and a thin executable.
        .target(
            name: "HomepwnerApp",
            dependencies: library(
                "PropertyList", "KeyedArchive", "AppSandbox", "AppRuntime", "AppStores", "AppDefaults", "AppLifecycle",
                "Locking") + [
                    cloud,
                    .product(name: "Hummingbird", package: "hummingbird"),
                    .product(name: "HummingbirdCore", package: "hummingbird"),
                    .product(name: "Logging", package: "swift-log"),
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                ]
        ),
        .executableTarget(
            name: "Homepwner",
            dependencies: ["HomepwnerApp", cloud, .product(name: "ArgumentParser", package: "swift-argument-parser")]
                + library("AppSandbox")
        ),
        .target(name: "FoodTrackerApp", dependencies: library("KeyedArchive", "AppSandbox", "AppStores")),
        .executableTarget(
            name: "FoodTracker",
            dependencies: ["FoodTrackerApp", cloud, .product(name: "ArgumentParser", package: "swift-argument-parser")]
                + library("AppSandbox")
        ),
        port("FoodTracker"),
        port("Homepwner"),
        port("Neuburg"),
        .testTarget(name: "PortTests", dependencies: library("Keepsake", "KeyedArchive") + [testSupport]),
        .testTarget(
            name: "HomepwnerTests",
            dependencies: ["HomepwnerApp", cloud, testSupport]
                + library("KeyedArchive", "AppSandbox", "AppRuntime", "AppStores", "AppLifecycle", "Locking") + [
                    .product(name: "Hummingbird", package: "hummingbird"),
                    .product(name: "HummingbirdTesting", package: "hummingbird"),
                ]
        ),
        .testTarget(
            name: "FoodTrackerTests",
            dependencies: ["FoodTrackerApp", testSupport] + library("KeyedArchive", "AppSandbox")
        ),
    ],
    swiftLanguageModes: [.v6]
)
