// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Keepsake",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Keepsake", targets: ["Keepsake"]),
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        .executable(name: "keepsake", targets: ["KeepsakeCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Layer 0: property-list values and their binary, XML, OpenStep and JSON forms.
        // Deliberately free of dependencies so fuzz targets can compile it with plain swiftc.
        .target(name: "PropertyList"),

        // Layer 1: the coding protocol, keyed archiver and unarchiver (NSKeyedArchiver format).
        .target(name: "KeyedArchive", dependencies: ["PropertyList"]),

        // Umbrella that re-exports every layer.
        .target(name: "Keepsake", dependencies: ["PropertyList", "KeyedArchive"]),

        .executableTarget(
            name: "KeepsakeCLI",
            dependencies: [
                "PropertyList",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "PropertyListTests", dependencies: ["PropertyList"]),
        .testTarget(name: "KeepsakeCLITests", dependencies: ["PropertyList"]),
        .testTarget(name: "KeyedArchiveTests", dependencies: ["KeyedArchive", "PropertyList"]),
    ],
    swiftLanguageModes: [.v6]
)
