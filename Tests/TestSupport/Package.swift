// swift-tools-version: 6.0
// The same test support for this repository's other packages (Apps/, Cloud/, Benchmarks/),
// which reach it by path. The library's own package compiles these files as a target no
// product names, so no user of the library ever sees it; a package of its own because a
// published package may not depend on a local one.
import PackageDescription

let package = Package(
    name: "KeepsakeTestSupport",
    platforms: [.macOS(.v13)],
    products: [.library(name: "KeepsakeTestSupport", targets: ["TestSupport"])],
    targets: [
        .target(
            name: "TestSupport", path: ".", exclude: ["Package.swift"],
            swiftSettings: [
                .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
