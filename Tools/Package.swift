// swift-tools-version: 6.0
// Tools for developers porting the books' code, in a package of their own so that the
// library never depends on swift-syntax. `keepsake port-check` runs the
// `keepsake-port-check` executable built here.
// Build from the repository root: swift build --package-path Tools
import PackageDescription

let package = Package(
    name: "KeepsakeTools",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "keepsake-port-check", targets: ["PortCheckCommand"])
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1")
    ],
    targets: [
        // Finds the Foundation calls that compile on Linux but bypass Keepsake.
        .target(
            name: "PortCheck",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        .executableTarget(name: "PortCheckCommand", dependencies: ["PortCheck"]),
        .testTarget(name: "PortCheckTests", dependencies: ["PortCheck"], resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
