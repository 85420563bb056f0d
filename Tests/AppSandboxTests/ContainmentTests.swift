import Foundation
import TestSupport
import Testing

@testable import AppSandbox

/// The attack list: names that try to leave the container or the directory asked
/// for. Each must be refused with a typed error, and nothing outside may be read or
/// written.
@Suite("Containment")
struct ContainmentTests {
    /// A container beside a "victim" folder holding a secret, with hostile links
    /// planted in Documents.
    struct Fixture {
        let folder: TemporaryDirectory
        let container: AppContainer
        let documents: SandboxDirectory
        let victim: URL
        let secret = Data("do not touch".utf8)

        init() throws {
            folder = TemporaryDirectory("keepsake-tests")
            container = AppContainer(identifier: "com.example.Attacked", url: folder.file("container"), system: .live)
            try container.createDirectories()
            documents = container.directory(.documents)
            victim = folder.file("victim")
            try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
            try secret.write(to: victim.appendingPathComponent("secret"))
            let docs = container.documentsDirectory.path
            let link = { (name: String, target: String) in
                try FileManager.default.createSymbolicLink(atPath: docs + "/" + name, withDestinationPath: target)
            }
            try link("etc", "/etc")  // symlink to /etc
            try link("victim-dir", victim.path)  // symlinked parent, absolute
            try link("victim-relative", "../../victim")  // symlinked parent, relative
            try link("secret-link", victim.path + "/secret")  // symlink to an outside file
            try link("library", "../Library")  // leaves the directory asked for
            try link("loop-a", "loop-b")
            try link("loop-b", "loop-a")
            try FileManager.default.createDirectory(atPath: docs + "/inside", withIntermediateDirectories: true)
            try Data("inside".utf8).write(to: URL(fileURLWithPath: docs + "/inside/file"))
            try link("inside-link", "inside/file")  // stays inside: allowed
            try link("inside-absolute", docs + "/inside/file")  // absolute but inside: allowed
        }

        /// Everything outside Documents is as the fixture left it.
        func expectOutsideUntouched(_ comment: Comment? = nil) throws {
            #expect(try FileManager.default.contentsOfDirectory(atPath: victim.path) == ["secret"], comment)
            #expect(try Data(contentsOf: victim.appendingPathComponent("secret")) == secret, comment)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: container.libraryDirectory.path).sorted()
                    == ["Application Support", "Caches", "Preferences"], comment)
            #expect(try folder.names() == ["container", "victim"], comment)
            #expect(!FileManager.default.fileExists(atPath: "/etc/keepsake-attack"), comment)
        }
    }

    static let attacks: [(String, SandboxError.Code)] = [
        ("../escape", .outsideContainer),
        ("../../victim/secret", .outsideContainer),
        ("inside/../../escape", .outsideContainer),
        ("..", .outsideContainer),
        ("/etc/passwd", .outsideContainer),
        ("/tmp/keepsake-attack", .outsideContainer),
        ("etc/passwd", .outsideContainer),
        ("etc/keepsake-attack", .outsideContainer),
        ("victim-dir/secret", .outsideContainer),
        ("victim-dir/new-file", .outsideContainer),
        ("victim-relative/secret", .outsideContainer),
        ("secret-link", .outsideContainer),
        ("library/Preferences/x", .outsideContainer),
        ("loop-a", .tooManySymbolicLinks),
        ("a\u{0}b", .invalidName),
        ("inside\u{0}/../../x", .invalidName),
        ("..\u{2215}..\u{2215}escape", .invalidName),  // DIVISION SLASH
        ("..\u{2044}escape", .invalidName),  // FRACTION SLASH
        ("..\u{FF0F}escape", .invalidName),  // FULLWIDTH SOLIDUS
        ("..\\..\\escape", .invalidName),  // Windows separator
        ("\u{FF0E}\u{FF0E}", .invalidName),  // FULLWIDTH FULL STOP ×2
        ("", .invalidName),
        ("a//b", .invalidName),
        (".", .invalidName),
        (String(repeating: "n", count: 256), .invalidName),
        (Array(repeating: "d", count: 2100).joined(separator: "/"), .invalidName),
    ]

    /// Names whose last component is itself a link: removing, moving onto or
    /// copying onto it concerns the link (which is inside), not its target.
    static let finalLinks: Set<String> = ["secret-link", "loop-a"]

    @Test("Every attack is refused by every operation, and nothing outside changes", arguments: 0..<attacks.count)
    func attack(index: Int) throws {
        let (path, code) = Self.attacks[index]
        let operations: [(String, (SandboxDirectory) throws -> Void)] = [
            ("write", { try $0.write(Data("pwned".utf8), to: path) }),
            ("write text", { try $0.write("pwned", to: path) }),
            ("read", { _ = try $0.contents(of: path) }),
            ("create directory", { try $0.createDirectory(path) }),
            ("list", { _ = try $0.contentsOfDirectory(path) }),
            ("enumerate", { _ = try $0.enumerate(path) }),
            ("remove", { try $0.removeItem(path) }),
            ("move in", { try $0.moveItem("inside/file", to: path) }),
            ("move out", { try $0.moveItem(path, to: "moved") }),
            ("copy in", { try $0.copyItem("inside/file", to: path) }),
            ("copy out", { try $0.copyItem(path, to: "copied") }),
            ("exclude", { try $0.setExcludedFromBackup(true, for: path) }),
            ("url", { _ = try $0.url(for: path) }),
        ]
        for (name, operation) in operations {
            let fixture = try Fixture()
            defer { fixture.folder.remove() }
            let context = "\(name) \(path.debugDescription)"
            if Self.finalLinks.contains(path), ["remove", "move out", "copy out"].contains(name) {
                // Acting on the link itself is allowed; its target must stay as it was.
                try? operation(fixture.documents)
            } else if Self.finalLinks.contains(path), ["move in", "copy in"].contains(name) {
                let error = #expect(throws: SandboxError.self, Comment(rawValue: context)) {
                    try operation(fixture.documents)
                }
                #expect(error?.code == .fileExists, Comment(rawValue: context))
            } else {
                let error = #expect(throws: SandboxError.self, Comment(rawValue: context)) {
                    try operation(fixture.documents)
                }
                #expect(error?.code == code, Comment(rawValue: "\(context) threw \(String(describing: error))"))
                #expect(!fixture.documents.fileExists(path), Comment(rawValue: context))
            }
            try fixture.expectOutsideUntouched(Comment(rawValue: context))
        }
    }

    @Test("Removing a link that points outside removes the link, not its target")
    func removeOutsideLink() throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        try fixture.documents.removeItem("victim-dir")
        try fixture.documents.removeItem("secret-link")
        try fixture.expectOutsideUntouched()
        #expect(!fixture.documents.fileExists("victim-dir"))
    }

    @Test("Links that stay inside the directory are followed")
    func insideLinks() throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        #expect(try fixture.documents.contents(of: "inside-link") == Data("inside".utf8))
        #expect(try fixture.documents.contents(of: "inside-absolute") == Data("inside".utf8))
        try fixture.documents.write(Data("changed".utf8), to: "inside-link")
        #expect(try fixture.documents.contents(of: "inside/file") == Data("changed".utf8))
        let linkPath = fixture.container.documentsDirectory.appendingPathComponent("inside-link").path
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: linkPath) == "inside/file")
        #expect(
            try fixture.documents.url(for: "inside-link")
                == fixture.container.documentsDirectory
                .appendingPathComponent("inside").appendingPathComponent("file"))
    }

    @Test("A directory of the container that is itself a link out is refused")
    func directoryLinkedOut() throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        let caches = fixture.container.cachesDirectory
        try FileManager.default.removeItem(at: caches)
        try FileManager.default.createSymbolicLink(at: caches, withDestinationURL: fixture.victim)
        let error = #expect(throws: SandboxError.self) {
            try fixture.container.directory(.caches).write(Data("x".utf8), to: "pwned")
        }
        #expect(error?.code == .outsideContainer)
        let listError = #expect(throws: SandboxError.self) {
            try fixture.container.directory(.caches).contentsOfDirectory()
        }
        #expect(listError?.code == .outsideContainer)
        try fixture.expectOutsideUntouched()
    }
}
