// swift-tools-version: 6.0
// The same test support for this repository's other packages (Apps/, Cloud/, Benchmarks/),
// which reach it by path. The library's own package compiles these files as a target no
// product names, so no user of the library ever sees it; a package of its own because a
// published package may not depend on a local one. It guards its state with the
// library's Locking, reached by path.
import Foundation
import PackageDescription

// A path dependency is named after its folder, which differs between checkouts.
let keepsake = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "KeepsakeTestSupport",
    platforms: [.macOS(.v13)],
    products: [.library(name: "KeepsakeTestSupport", targets: ["TestSupport"])],
    dependencies: [.package(path: "../..")],
    targets: [
        .target(
            name: "TestSupport", dependencies: [.product(name: "Locking", package: keepsake)], path: ".",
            exclude: ["Package.swift"],
            swiftSettings: [
                .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
