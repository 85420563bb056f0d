import Foundation
import TestSupport
import Testing

@testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

@Suite("Backup rules, backup and restore")
struct BackupTests {
    /// A folder of each test's own (a suite instance is made per test), removed after it.
    let folder = TemporaryDirectory("keepsake-tests")

    /// A container filled the way the seeds describe one.
    static func populated() throws -> AppContainer {
        let container = try AppContainer.temporary(identifier: "com.example.Homepwner")
        let documents = container.directory(.documents)
        try documents.write(Data("items".utf8), to: "items.archive")
        try documents.createDirectory("images")
        try documents.write(Data(repeating: 7, count: 3000), to: "images/chair.jpg")
        try documents.createDirectory("Downloads/big")
        try documents.write(Data(repeating: 1, count: 500), to: "Downloads/big/movie.bin")
        try documents.setExcludedFromBackup(true, for: "Downloads")
        try documents.write(Data("scratch".utf8), to: "rebuildable.idx")
        try documents.setExcludedFromBackup(true, for: "rebuildable.idx")
        try container.directory(.preferences).write(Data("<plist/>".utf8), to: "com.example.Homepwner.plist")
        try container.directory(.applicationSupport).createDirectory("Store")
        try container.directory(.applicationSupport).write(Data("db".utf8), to: "Store/main.db")
        try container.directory(.caches).write(Data("thumb".utf8), to: "thumb.png")
        try container.directory(.temporary).write(Data("upload".utf8), to: "upload.part")
        try FileManager.default.createSymbolicLink(
            atPath: container.documentsDirectory.appendingPathComponent("link").path,
            withDestinationPath: "items.archive"
        )
        return container
    }

    static let expectedPlan = [
        "Documents/images", "Documents/images/chair.jpg", "Documents/items.archive",
        "Library/Application Support", "Library/Application Support/Store", "Library/Application Support/Store/main.db",
        "Library/Preferences", "Library/Preferences/com.example.Homepwner.plist",
    ]

    @Test("The exclusion flag persists on the item and reads back")
    func flagPersists() throws {
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        let documents = container.directory(.documents)
        try documents.write(Data(), to: "a")
        #expect(try documents.isExcludedFromBackup("a") == false)
        try documents.setExcludedFromBackup(true, for: "a")
        // A fresh value reads it back from disk: the mark is the extended attribute.
        #expect(try container.directory(.documents).isExcludedFromBackup("a"))
        let path = container.documentsDirectory.appendingPathComponent("a").path
        if Python.executable != nil { #expect(Self.attribute(path) == "1") }
        // It follows the file through a rename.
        try documents.moveItem("a", to: "b")
        #expect(try documents.isExcludedFromBackup("b"))
        try documents.setExcludedFromBackup(false, for: "b")
        #expect(try documents.isExcludedFromBackup("b") == false)
        if Python.executable != nil {
            #expect(Self.attribute(container.documentsDirectory.appendingPathComponent("b").path) == nil)
        }
    }

    @Test("Without extended attributes the flag falls back to a list in Library")
    func flagFallback() throws {
        var calls = SystemCalls.live
        calls.setxattr = { _, _, _ throws(Errno) in throw Errno(ENOTSUP) }
        calls.getxattr = { _, _ throws(Errno) in throw Errno(ENOTSUP) }
        calls.removexattr = { _, _ throws(Errno) in throw Errno(ENOTSUP) }
        let container = AppContainer(identifier: "com.example.NoXattr", url: folder.file("c"), system: calls)
        let documents = container.directory(.documents)
        try documents.createDirectory("cache")
        try documents.write(Data(), to: "cache/x")
        try documents.setExcludedFromBackup(true, for: "cache")
        #expect(try documents.isExcludedFromBackup("cache"))
        #expect(try documents.isExcludedFromBackup("cache/x") == false)
        let list = try Data(
            contentsOf: container.libraryDirectory.appendingPathComponent(".keepsake-backup-exclusions"))
        #expect(list == Data("Documents/cache\u{0}".utf8))
        #expect(
            try BackupPlan(container: container).items.map(\.path).contains { $0.hasPrefix("Documents/cache") } == false
        )
        try documents.setExcludedFromBackup(false, for: "cache")
        #expect(try documents.isExcludedFromBackup("cache") == false)
        #expect(try BackupPlan(container: container).items.map(\.path).contains("Documents/cache/x"))
    }

    @Test("The plan takes Documents and Library, not Caches, tmp, excluded items or links")
    func planContents() throws {
        let container = try Self.populated()
        defer { try? container.destroy() }
        let plan = try BackupPlan(container: container)
        #expect(plan.items.map(\.path) == Self.expectedPlan)
        #expect(plan.totalBytes == 5 + 3000 + 2 + 8)
        #expect(plan.items.first { $0.path == "Documents/images/chair.jpg" }?.size == 3000)
    }

    @Test("Backup to ZIP and restore into a fresh container round-trips every planned file")
    func zipRoundTrip() throws {
        let container = try Self.populated()
        defer { try? container.destroy() }
        let zip = folder.file("backup.zip")
        let plan = try SandboxBackup.write(container: container, to: zip)
        #expect(plan.items.map(\.path) == Self.expectedPlan)
        #expect(try folder.names() == ["backup.zip"])

        if let names = Self.pythonZipNames(zip) {
            // An independent reader agrees on the entries.
            #expect(
                names
                    == Self.expectedPlan.map { path in
                        plan.items.first { $0.path == path }?.kind == .directory ? path + "/" : path
                    })
        }

        let restored = try AppContainer.temporary(identifier: "com.example.Homepwner")
        defer { try? restored.destroy() }
        try restored.directory(.documents).write(Data("keep me".utf8), to: "local-only")
        let paths = try SandboxBackup.restore(from: zip, into: restored)
        #expect(paths == Self.expectedPlan)
        for item in plan.items where item.kind == .file {
            let original = try Data(contentsOf: container.url.appendingPathComponent(item.path))
            #expect(try Data(contentsOf: restored.url.appendingPathComponent(item.path)) == original, "\(item.path)")
        }
        #expect(try restored.directory(.documents).contents(of: "local-only") == Data("keep me".utf8))
        #expect(try restored.directory(.caches).contentsOfDirectory().isEmpty)
        #expect(
            try BackupPlan(container: restored).items.map(\.path)
                == (Self.expectedPlan + ["Documents/local-only"]).sorted())
    }

    @Test(
        "Restore refuses hostile archives before writing anything",
        .enabled(if: Python.executable != nil, "needs python3 to forge archives"),
        arguments: [
            ("../../escape.txt", SandboxError.Code.invalidBackup),
            ("Documents/../../escape.txt", .outsideContainer),
            ("/etc/keepsake-escape", .outsideContainer),
            ("Documents/a\u{2215}b", .invalidName),
            ("tmp/upload.part", .invalidBackup),
            ("Library/Caches/thumb.png", .invalidBackup),
            ("symlink:Documents/link", .invalidBackup),
        ]
    )
    func hostileArchive(entry: String, code: SandboxError.Code) throws {
        let zip = folder.file("evil.zip")
        try Self.makeZip(zip, entries: ["Documents/fine.txt", entry])
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        let error = #expect(throws: SandboxError.self) { try SandboxBackup.restore(from: zip, into: container) }
        #expect(error?.code == code)
        #expect(
            try container.directory(.documents).contentsOfDirectory().isEmpty,
            "nothing may be restored from a refused archive")
        #expect(try folder.names() == ["evil.zip"])
        #expect(!FileManager.default.fileExists(atPath: "/etc/keepsake-escape"))
    }

    @Test("A file that is not a ZIP is reported as an invalid backup")
    func notAZip() throws {
        try Data("PK but not really".utf8).write(to: folder.file("bad.zip"))
        let container = try AppContainer.temporary()
        defer { try? container.destroy() }
        let error = #expect(throws: SandboxError.self) {
            try SandboxBackup.restore(from: folder.file("bad.zip"), into: container)
        }
        #expect(error?.code == .invalidBackup)
    }

    @Test("The summary counts files and bytes per directory")
    func summary() throws {
        let container = try Self.populated()
        defer { try? container.destroy() }
        let rows = try ContainerSummary(container: container).rows
        let byKind = Dictionary(uniqueKeysWithValues: rows.map { ($0.directory, ($0.fileCount, $0.byteCount)) })
        #expect(byKind[.documents]! == (4, 5 + 3000 + 500 + 7))
        #expect(byKind[.caches]! == (1, 5))
        #expect(byKind[.preferences]! == (1, 8))
        #expect(byKind[.applicationSupport]! == (1, 2))
        #expect(byKind[.temporary]! == (1, 6))
        #expect(byKind[.library]! == (3, 5 + 8 + 2))
        #expect(rows.map(\.directory) == AppContainer.Directory.allCases)
    }

    // MARK: Helpers

    /// The extended attribute as Python's `os.getxattr` reads it, nil when absent.
    static func attribute(_ path: String) -> String? {
        let script = """
            import os, sys
            try: print(os.getxattr(sys.argv[1], "user.keepsake.excludedFromBackup").decode(), end="")
            except OSError: print("<none>", end="")
            """
        let value = runPython(script, [path])
        return value == "<none>" ? nil : value
    }

    /// Python 3 (an independent reader of ZIPs and attributes): what `script` printed,
    /// nil when it failed or there is no Python.
    static func runPython(_ script: String, _ arguments: [String]) -> String? {
        try? Python.text(script, arguments)
    }

    static func pythonZipNames(_ zip: URL) -> [String]? {
        runPython("import sys, zipfile\nfor n in zipfile.ZipFile(sys.argv[1]).namelist(): print(n)", [zip.path])
            .map { $0.split(separator: "\n").map(String.init) }
    }

    /// Writes a ZIP with Python's zipfile, which stores any name it is given. An entry
    /// `symlink:NAME` becomes a Unix symbolic link.
    static func makeZip(_ url: URL, entries: [String]) throws {
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                for name in sys.argv[2:]:
                    if name.startswith("symlink:"):
                        info = zipfile.ZipInfo(name[8:])
                        info.external_attr = (0o120777 << 16)
                        info.create_system = 3
                        z.writestr(info, "/etc/passwd")
                    else:
                        z.writestr(name, "payload")
            """
        guard runPython(script, [url.path] + entries) != nil else { throw CocoaError(.fileWriteUnknown) }
    }
}
