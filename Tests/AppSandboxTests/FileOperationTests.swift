import Foundation
import TestSupport
import Testing

@testable import AppSandbox

@Suite("File operations in a directory")
final class FileOperationTests {
    /// A container of each test's own (a suite instance is made per test), destroyed after it.
    let container: AppContainer

    init() throws { container = try AppContainer.temporary() }
    deinit { try? container.destroy() }

    @Test("Write, read and replace data and text")
    func writeAndRead() throws {
        let documents = container.directory(.documents)
        try documents.write(Data([1, 2, 3]), to: "items.archive")
        #expect(try documents.contents(of: "items.archive") == Data([1, 2, 3]))
        try documents.write(Data([4]), to: "items.archive")
        #expect(try Data(contentsOf: container.documentsDirectory.appendingPathComponent("items.archive")) == Data([4]))
        try documents.write("Grüße", to: "note.txt", encoding: .isoLatin1)
        #expect(try documents.contents(of: "note.txt") == "Grüße".data(using: .isoLatin1))
        #expect(try documents.string(contentsOf: "note.txt", encoding: .isoLatin1) == "Grüße")
        #expect(documents.fileExists("note.txt"))
        #expect(!documents.fileExists("missing"))
    }

    @Test(
        "Errors are typed and carry the path",
        arguments: [
            ("missing", SandboxError.Code.noSuchFile),
            ("folder", .isADirectory),
            ("file/below", .notADirectory),
        ])
    func readErrors(path: String, code: SandboxError.Code) throws {
        let documents = container.directory(.documents)
        try documents.createDirectory("folder")
        try documents.write(Data(), to: "file")
        let error = #expect(throws: SandboxError.self) { try documents.contents(of: path) }
        #expect(error?.code == code)
        #expect(error?.path?.hasPrefix(container.documentsDirectory.path) == true)
    }

    @Test("Writing into a missing folder fails like Data.write: no such file")
    func missingFolder() throws {
        let error = #expect(throws: SandboxError.self) {
            try container.directory(.documents).write(Data(), to: "photos/a.jpg")
        }
        #expect(error?.code == .noSuchFile)
        switch error {
        case .some(.noSuchFile): break
        default: Issue.record("~= should match .noSuchFile")
        }
    }

    @Test("Create folders with and without intermediates")
    func createDirectories() throws {
        let support = container.directory(.applicationSupport)
        try support.createDirectory("a/b/c")
        try support.createDirectory("a/b/c")  // exists: fine with intermediates
        let exists = #expect(throws: SandboxError.self) {
            try support.createDirectory("a/b/c", withIntermediateDirectories: false)
        }
        #expect(exists?.code == .fileExists)
        let missing = #expect(throws: SandboxError.self) {
            try support.createDirectory("x/y", withIntermediateDirectories: false)
        }
        #expect(missing?.code == .noSuchFile)
        try support.write(Data(), to: "plain")
        let overFile = #expect(throws: SandboxError.self) { try support.createDirectory("plain") }
        #expect(overFile?.code == .fileExists)
        #expect(try support.contentsOfDirectory("a/b") == ["c"])
    }

    @Test("List, and enumerate with a skipped subtree")
    func listAndEnumerate() throws {
        let documents = container.directory(.documents)
        try documents.createDirectory("photos/2024")
        try documents.createDirectory("cache/thumbs")
        try documents.write(Data(count: 10), to: "photos/2024/a.jpg")
        try documents.write(Data(count: 20), to: "cache/thumbs/t.jpg")
        try documents.write(Data(count: 5), to: "items.archive")
        #expect(try documents.contentsOfDirectory() == ["cache", "items.archive", "photos"])
        let all = try documents.enumerate().map(\.relativePath)
        #expect(
            all == [
                "cache", "cache/thumbs", "cache/thumbs/t.jpg", "items.archive", "photos", "photos/2024",
                "photos/2024/a.jpg",
            ])
        let skipped = try documents.enumerate(skippingDescendantsOf: { $0.name == "cache" })
        #expect(
            skipped.map(\.relativePath) == ["cache", "items.archive", "photos", "photos/2024", "photos/2024/a.jpg"])
        let photo = try #require(skipped.last)
        #expect(photo.kind == .file && photo.size == 10 && photo.name == "a.jpg")
        #expect(try documents.enumerate("photos").map(\.relativePath) == ["2024", "2024/a.jpg"])
    }

    @Test("Move, copy and remove")
    func moveCopyRemove() throws {
        let documents = container.directory(.documents)
        try documents.createDirectory("tree/sub")
        try documents.write(Data("leaf".utf8), to: "tree/sub/leaf")
        chmod(container.documentsDirectory.appendingPathComponent("tree/sub/leaf").path, 0o600)
        try documents.copyItem("tree", to: "copy")
        #expect(try documents.contents(of: "copy/sub/leaf") == Data("leaf".utf8))
        #expect(
            try FileManager.default.attributesOfItem(
                atPath: container.documentsDirectory.appendingPathComponent("copy/sub/leaf").path)[.posixPermissions]
                as? Int == 0o600)
        let copyExists = #expect(throws: SandboxError.self) { try documents.copyItem("tree", to: "copy") }
        #expect(copyExists?.code == .fileExists)

        try documents.moveItem("copy", to: "moved")
        #expect(!documents.fileExists("copy"))
        #expect(try documents.contents(of: "moved/sub/leaf") == Data("leaf".utf8))
        let moveExists = #expect(throws: SandboxError.self) { try documents.moveItem("moved", to: "tree") }
        #expect(moveExists?.code == .fileExists)

        // Across directories of the container.
        let temporary = container.directory(.temporary)
        try temporary.write(Data("download".utf8), to: "part")
        try temporary.moveItem("part", to: "download", in: documents)
        #expect(try documents.contents(of: "download") == Data("download".utf8))
        #expect(try temporary.contentsOfDirectory().isEmpty)

        try documents.removeItem("moved")
        try documents.removeItem("download")
        #expect(try documents.contentsOfDirectory() == ["tree"])
        let missing = #expect(throws: SandboxError.self) { try documents.removeItem("moved") }
        #expect(missing?.code == .noSuchFile)
    }

    @Test("Attributes of an item")
    func attributes() throws {
        let documents = container.directory(.documents)
        let before = Date().addingTimeInterval(-5)
        try documents.write(Data(count: 123), to: "f")
        let info = try documents.attributesOfItem("f")
        #expect(info.kind == .file && info.size == 123)
        #expect(info.modificationDate > before)
    }

    @Test(
        "Errors from the system are typed",
        arguments: [
            (EACCES, SandboxError.Code.permissionDenied), (EROFS, .readOnly), (ENOSPC, .noSpace), (EIO, .ioError),
        ])
    func injectedErrors(errno: Int32, code: SandboxError.Code) throws {
        let folder = TemporaryDirectory("keepsake-tests")
        defer { folder.remove() }
        var calls = SystemCalls.live
        calls.mkdirat = { _, _, _ throws(Errno) in throw Errno(errno) }
        let container = AppContainer(identifier: "com.example.Faulty", url: folder.file("c"), system: calls)
        let error = #expect(throws: SandboxError.self) { try container.directory(.documents).write(Data(), to: "x") }
        #expect(error?.code == code)
        #expect(error?.errno == errno)
    }
}

#if canImport(Glibc)
import Glibc
#endif
