import Foundation
import Testing

@testable import AppSandbox

@Suite("Bundle resources")
struct ResourceBundleTests {
    /// The test target's own SwiftPM resources (`Fixtures/Resources`).
    static func bundled() throws -> ResourceBundle {
        let base = try #require(ResourceBundle(bundle: .module))
        return ResourceBundle(url: base.url.appendingPathComponent("Fixtures/Resources"))
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
        let folder = try ScratchFolder()
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
