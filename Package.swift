// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Keepsake",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Keepsake", targets: ["Keepsake"]),
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        .library(name: "AppRuntime", targets: ["AppRuntime"]),
        .library(name: "AppSandbox", targets: ["AppSandbox"]),
        .library(name: "AppDefaults", targets: ["AppDefaults"]),
        .library(name: "AppLifecycle", targets: ["AppLifecycle"]),
        .library(name: "AppStores", targets: ["AppStores"]),
        // The guard for shared state; a product because Cloud/ and Apps/ guard theirs with it.
        .library(name: "Locking", targets: ["Locking"]),
        .executable(name: "keepsake", targets: ["KeepsakeCLI"]),
        // What `keepsake` shares with its companion commands (keepsake-cloud, in Cloud/):
        // values typed and printed as macOS `defaults` does.
        .library(name: "KeepsakeCommandLine", targets: ["KeepsakeCommandLine"]),
    ],
    // Only what the libraries and the `keepsake` command need: a user of the library
    // resolves no networking package. The reference apps live in Apps/Package.swift.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        // UnixSignals only: signal delivery as an async sequence, without SwiftNIO.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation`: DocC for every library.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // Below every layer: `Locked`, the one way shared mutable state is guarded.
        .target(name: "Locking"),

        // Layer 0: property-list values and their binary, XML, OpenStep and JSON forms.
        // It depends on Locking alone, so fuzz targets can compile both with plain swiftc.
        .target(name: "PropertyList", dependencies: ["Locking"]),

        // Layer 1: the coding protocol, keyed archiver and unarchiver (NSKeyedArchiver format);
        // its file one-liners write through the sandbox's durable replace.
        // The coder's hot state turns off dynamic exclusivity checks; debug builds (and so
        // the tests) keep them.
        .target(
            name: "KeyedArchive",
            dependencies: ["PropertyList", "AppSandbox", "Locking"],
            swiftSettings: [.define("KEEPSAKE_EXCLUSIVITY_CHECKS", .when(configuration: .debug))]
        ),

        // Below the layers: how they run work. The one scheduler (and its timer thread),
        // observation token, change streams, and the executors that keep blocking work
        // off Swift's cooperative pool: a serial I/O queue and BlockingIO.
        .target(name: "AppRuntime", dependencies: ["Locking"]),

        // Layer 1: the app container, durable files and the journal, backup rules,
        // coordination, resources (whose Info.plist it reads through the property-list
        // layer), and the one name validator.
        .target(
            name: "AppSandbox",
            dependencies: [
                "PropertyList", "AppRuntime", "Locking", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),

        // Layer 2: user defaults: search list, registration, suites, persistence, notifications,
        // and saving when the app enters the background.
        .target(
            name: "AppDefaults", dependencies: ["PropertyList", "AppRuntime", "AppSandbox", "AppLifecycle", "Locking"]),

        // Layer 2: application states, delegate callbacks, signals, background time,
        // memory warnings.
        .target(
            name: "AppLifecycle",
            dependencies: [
                "PropertyList", "AppRuntime", "AppSandbox", "Locking",
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),

        // Layer 3: the memory cache, the item store and the blob (image) store.
        .target(
            name: "AppStores",
            dependencies: ["PropertyList", "AppRuntime", "AppLifecycle", "KeyedArchive", "AppSandbox", "Locking"]),

        // Umbrella that re-exports every layer.
        .target(
            name: "Keepsake",
            dependencies: [
                "PropertyList", "KeyedArchive", "AppRuntime", "AppSandbox", "AppDefaults", "AppLifecycle", "AppStores",
            ]
        ),

        .target(
            name: "KeepsakeCommandLine",
            dependencies: ["PropertyList", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Release builds make a position-dependent executable: a start then applies no
        // relocations (80,000 of them with the Swift libraries linked in), which takes
        // 2.5 MB off `keepsake extract`'s peak memory (BENCHMARKS.md). Debug builds stay
        // position-independent, for the sanitizers. The Swift libraries are linked in by
        // `--static-swift-stdlib` (README): given here as `-static-stdlib`, the link
        // misses the Core Foundation symbols that option adds.
        .executableTarget(
            name: "KeepsakeCLI",
            dependencies: [
                "KeepsakeCommandLine",
                "PropertyList",
                "KeyedArchive",
                "AppSandbox",
                "AppDefaults",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [
                .unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux], configuration: .release))
            ]
        ),

        // What the test targets share: the corpus, the built executables they run and the
        // one child-process runner. No product names it; the repository's other packages
        // reach the same files through their own manifest, Tests/TestSupport/Package.swift.
        .target(name: "TestSupport", dependencies: ["Locking"], path: "Tests/TestSupport", exclude: ["Package.swift"]),

        // Child processes the tests start. No product names them, so a package that
        // depends on this one never builds them.
        // The sandbox's crash and cross-process coordination tests.
        .executableTarget(
            name: "SandboxTestHelper", dependencies: ["AppSandbox", "TestSupport"],
            path: "Tests/Helpers/SandboxTestHelper"),
        // The defaults' cross-process and crash tests.
        .executableTarget(
            name: "DefaultsTestHelper", dependencies: ["AppDefaults", "AppSandbox", "TestSupport"],
            path: "Tests/Helpers/DefaultsTestHelper"),
        // The lifecycle's signal tests: an app with an item store.
        .executableTarget(
            name: "LifecycleTestHelper",
            dependencies: ["AppLifecycle", "AppStores", "AppSandbox", "KeyedArchive", "TestSupport"],
            path: "Tests/Helpers/LifecycleTestHelper"
        ),

        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "PropertyListTests", dependencies: ["PropertyList", "Locking", "TestSupport"]),
        .testTarget(
            name: "KeepsakeCLITests", dependencies: ["PropertyList", "KeyedArchive", "Locking", "TestSupport"]),
        .testTarget(
            name: "KeyedArchiveTests", dependencies: ["KeyedArchive", "PropertyList", "AppSandbox", "TestSupport"]),
        .testTarget(
            name: "AppSandboxTests", dependencies: ["AppSandbox", "PropertyList", "Locking", "TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "AppDefaultsTests",
            dependencies: [
                "AppDefaults", "AppLifecycle", "PropertyList", "AppRuntime", "AppSandbox", "Locking", "TestSupport",
            ]
        ),
        .testTarget(name: "AppRuntimeTests", dependencies: ["AppRuntime", "Locking"]),
        .testTarget(
            name: "AppLifecycleTests",
            dependencies: ["AppLifecycle", "AppRuntime", "AppSandbox", "Locking", "TestSupport"]
        ),
        .testTarget(
            name: "AppStoresTests",
            dependencies: [
                "AppStores", "AppLifecycle", "AppRuntime", "AppSandbox", "KeyedArchive", "Locking", "TestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// Each file imports what it uses, and an import is internal unless a public signature
// needs it. AppSandbox and the tests that check file types call the C library
// directly, and on Linux some of its structs (`stat`, `timespec`) are attributed to
// Foundation's or Dispatch's private C modules, whichever the build met first, which
// member-import visibility would then demand; those targets do without it.
for target in package.targets {
    var features: [SwiftSetting] = [.enableUpcomingFeature("InternalImportsByDefault")]
    if !["AppSandbox", "AppSandboxTests", "KeepsakeCLITests"].contains(target.name) {
        features.append(.enableUpcomingFeature("MemberImportVisibility"))
    }
    target.swiftSettings = (target.swiftSettings ?? []) + features
}
