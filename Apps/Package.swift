// swift-tools-version: 6.1
// The reference apps, in a package of their own so that the library never depends on a
// web server: Homepwner (a web app on Hummingbird) and FoodTracker (a command).
// Run from the repository root: swift run --package-path Apps homepwner
import Foundation
import PackageDescription

// A path dependency is named after its folder, which differs between checkouts.
let keepsake = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

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
        .trait(name: "Database", description: "Share Homepwner through PostgreSQL (KeepsakeCloud, postgres-nio).")
    ],
    dependencies: [
        .package(path: ".."),
        .package(path: "../Tests/TestSupport"),
        .package(path: "../Cloud"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Each app is a library with everything testable and a thin executable.
        .target(
            name: "HomepwnerApp",
            dependencies: [
                .product(name: "PropertyList", package: keepsake),
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "AppRuntime", package: keepsake),
                .product(name: "AppStores", package: keepsake),
                .product(name: "AppDefaults", package: keepsake),
                .product(name: "AppLifecycle", package: keepsake),
                .product(name: "KeepsakeCloud", package: "Cloud", condition: .when(traits: ["Database"])),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "Homepwner",
            dependencies: [
                "HomepwnerApp",
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "KeepsakeCloud", package: "Cloud", condition: .when(traits: ["Database"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "FoodTrackerApp",
            dependencies: [
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "AppStores", package: keepsake),
            ]
        ),
        .executableTarget(
            name: "FoodTracker",
            dependencies: [
                "FoodTrackerApp",
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The seeds' code ported with the README's porting table only, kept as the books
        // write it (Original/ holds the unported code the edits are counted against). The
        // books' code is Swift 5 code, and is compiled as such.
        .executableTarget(
            name: "FoodTrackerPort",
            dependencies: [.product(name: "Keepsake", package: keepsake)],
            path: "Ports/FoodTracker",
            exclude: ["Original"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "HomepwnerPort",
            dependencies: [.product(name: "Keepsake", package: keepsake)],
            path: "Ports/Homepwner",
            exclude: ["Original"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "NeuburgPort",
            dependencies: [.product(name: "Keepsake", package: keepsake)],
            path: "Ports/Neuburg",
            exclude: ["Original"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "PortTests",
            dependencies: [
                .product(name: "Keepsake", package: keepsake),
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "KeepsakeTestSupport", package: "TestSupport"),
            ]
        ),
        .testTarget(
            name: "HomepwnerTests",
            dependencies: [
                "HomepwnerApp",
                .product(name: "KeepsakeCloud", package: "Cloud", condition: .when(traits: ["Database"])),
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "AppRuntime", package: keepsake),
                .product(name: "AppStores", package: keepsake),
                .product(name: "AppLifecycle", package: keepsake),
                .product(name: "KeepsakeTestSupport", package: "TestSupport"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "FoodTrackerTests",
            dependencies: [
                "FoodTrackerApp",
                .product(name: "KeyedArchive", package: keepsake),
                .product(name: "AppSandbox", package: keepsake),
                .product(name: "KeepsakeTestSupport", package: "TestSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
