import Foundation
import TestSupport
import Testing

@testable import AppSandbox

@Suite("Bundle resources")
struct ResourceBundleTests {
    /// The test target's own SwiftPM resources (`Fixtures/Resources`).
    static func bundled() throws -> ResourceBundle {
        let base = try #require(ResourceBundle(bundle: .module))
        return ResourceBundle(url: base.url.appendingPathComponent("Fixtures/Resources"))
    }

    @Test("The main bundle is <executable>.resources, with its Info.plist's identifier and Bundle's path calls")
    func mainBundleLayout() throws {
        let folder = TemporaryDirectory("keepsake-main")
        defer { folder.remove() }
        let resources = folder.file("tool.resources")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        let executable = folder.file("tool")
        try Data("#!/bin/sh\n".utf8).write(to: executable)
        #expect(ResourceBundle.resourceFolder(forExecutable: executable).path == resources.path)
        #expect(
            ResourceBundle.resourceFolder(forExecutable: folder.file("other")).path == folder.url.path,
            "without a resources folder, the executable's own folder")

        let bundle = ResourceBundle(url: resources)
        #expect(bundle.infoDictionary == nil && bundle.bundleIdentifier == nil, "no Info.plist")
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.Tool</string>
            <key>CFBundleVersion</key><string>7</string>
            </dict></plist>
            """.utf8
        ).write(to: resources.appendingPathComponent("Info.plist"))
        try Data("a,b\n".utf8).write(to: resources.appendingPathComponent("items.csv"))
        #expect(bundle.bundleIdentifier == "com.example.Tool")
        #expect(bundle.infoDictionary?["CFBundleVersion"] as? String == "7")
        #expect(bundle.bundlePath == resources.path)
        #expect(bundle.path(forResource: "items", ofType: "csv") == resources.appendingPathComponent("items.csv").path)
        #expect(bundle.path(forResource: "items", ofType: "json") == nil)
    }

    @Test("The main container's identifier: KEEPSAKE_APP_ID, then CFBundleIdentifier, then the executable's name")
    func mainIdentity() {
        let both = AppContainer.mainIdentity(
            environment: ["KEEPSAKE_APP_ID": "com.example.FromEnvironment"], bundleIdentifier: "com.example.Tool",
            executableName: "tool")
        #expect(both.identifier == "com.example.FromEnvironment")
        let bundled = AppContainer.mainIdentity(
            environment: ["KEEPSAKE_APP_ID": ""], bundleIdentifier: "com.example.Tool", executableName: "tool")
        #expect(bundled.identifier == "com.example.Tool")
        #expect(
            AppContainer.mainIdentity(environment: [:], bundleIdentifier: nil, executableName: "tool").identifier
                == "tool")
        #expect(AppContainer.identifier(fromExecutableName: "port_home pwner") == "port-home-pwner")
        #expect(AppContainer.identifier(fromExecutableName: "..x..y.") == "x.y")
        #expect(AppContainer.identifier(fromExecutableName: "..") == "app")
        for name in ["port_home pwner", "..x..y.", "..", "héllo", "a/b"] {
            #expect(throws: Never.self, "\(name)") {
                try AppContainer(identifier: AppContainer.identifier(fromExecutableName: name), environment: [:])
            }
        }
    }

    @Test("Look up by name and extension, nil when missing")
    func lookup() throws {
        let resources = try Self.bundled()
        let url = try #require(resources.url(forResource: "greeting", withExtension: "json"))
        #expect(url.lastPathComponent == "greeting.json")
        #expect(
            resources.data(forResource: "greeting", withExtension: "json") == Data("{\"greeting\": \"hello\"}\n".utf8))
        #expect(resources.url(forResource: "greeting", withExtension: "xml") == nil)
        #expect(resources.url(forResource: "absent", withExtension: "json") == nil)
        #expect(
            resources.url(forResource: "dot", withExtension: "gif", subdirectory: "Images")?.lastPathComponent
                == "dot.gif")
        #expect(resources.url(forResource: nil, withExtension: "csv")?.lastPathComponent == "sample.csv")
        #expect(
            resources.urls(forResourcesWithExtension: nil).map(\.lastPathComponent) == ["greeting.json", "sample.csv"])
        #expect(resources.url(forResource: "Images", withExtension: nil) == nil, "a folder is not a resource")
    }

    static let hostileNames = [
        "../../../../../../etc/passwd", "/etc/passwd", "Images/../../x", "out", "out-file", "a\u{0}b",
    ]

    @Test("Names that leave the resource folder find nothing", arguments: hostileNames.indices)
    func containment(index: Int) throws {
        let name = Self.hostileNames[index]
        let folder = TemporaryDirectory("keepsake-tests")
        defer { folder.remove() }
        let root = folder.file("Resources")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: folder.file("secret"))
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("out").path, withDestinationPath: folder.url.path)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("out-file").path, withDestinationPath: "../secret")
        let resources = ResourceBundle(url: root)
        #expect(resources.url(forResource: name, withExtension: nil) == nil)
        #expect(resources.data(forResource: name, withExtension: nil) == nil)
        #expect(resources.url(forResource: "secret", withExtension: nil, subdirectory: "out") == nil)
    }
}
