import Foundation
import TestSupport
import Testing

/// `keepsake sandbox show|backup|restore`, on a container folder made for each test.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class SandboxCommandTests {
    let scratch = TemporaryDirectory("keepsake-sandbox-cli")
    let app = "com.example.Homepwner"
    var containers: URL { scratch.url }
    var root: URL { containers.appendingPathComponent(app) }

    init() throws {
        for folder in ["Documents", "Library/Caches", "Library/Preferences", "tmp"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data("items".utf8).write(to: root.appendingPathComponent("Documents/items.archive"))
        try Data("prefs".utf8).write(to: root.appendingPathComponent("Library/Preferences/com.example.Homepwner.plist"))
        try Data(count: 4096).write(to: root.appendingPathComponent("Library/Caches/thumbnail"))
        try Data("scratch".utf8).write(to: root.appendingPathComponent("tmp/scratch"))
    }

    @Test func showListsEveryDirectoryWithItsSize() throws {
        let result = try CLIRunner.run(["sandbox", "show", app, "--containers", containers.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == root.standardizedFileURL.path)
        #expect(lines.contains { $0.contains("Documents") && $0.contains("1 files") && $0.contains("5 B") })
        #expect(lines.contains { $0.contains("Library/Caches") && $0.contains("4.0 KB") })
        #expect(lines.last?.hasPrefix("backup:") == true)
    }

    @Test func backupFollowsTheRulesAndRestoreBringsFilesBack() throws {
        let zip = containers.appendingPathComponent("backup.zip")
        let backup = try CLIRunner.run(["sandbox", "backup", app, "--containers", containers.path, "-o", zip.path])
        #expect(backup.status == 0, "\(backup.stderr)")

        try FileManager.default.removeItem(at: root)
        let restore = try CLIRunner.run(["sandbox", "restore", app, "--containers", containers.path, zip.path])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(
            try String(contentsOf: root.appendingPathComponent("Documents/items.archive"), encoding: .utf8) == "items")
        #expect(
            FileManager.default.fileExists(
                atPath: root.appendingPathComponent("Library/Preferences/com.example.Homepwner.plist").path))
        #expect(
            !FileManager.default.fileExists(atPath: root.appendingPathComponent("Library/Caches/thumbnail").path),
            "Caches are not backed up")
        #expect(
            !FileManager.default.fileExists(atPath: root.appendingPathComponent("tmp/scratch").path),
            "tmp is not backed up")
    }

    @Test func restoreRefusesAFileThatIsNotABackup() throws {
        let bogus = containers.appendingPathComponent("bogus.zip")
        try Data("not a zip".utf8).write(to: bogus)
        let result = try CLIRunner.run(["sandbox", "restore", app, "--containers", containers.path, bogus.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("invalidBackup"))
    }

    @Test func identifiersThatAreNotReverseDNSAreRefused() throws {
        let result = try CLIRunner.run(["sandbox", "show", "../etc", "--containers", containers.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("invalidName"))
    }

    /// Runs a Python script with `arguments`; true when it exited 0.
    static func runPython(_ script: String, _ arguments: [String]) -> Bool {
        (try? Python.run(script, arguments)) != nil
    }

    @Test(
        .enabled(if: Python.executable != nil, "needs python3"),
        .enabled(if: Sanitizer.active == nil, "measures memory, which a sanitizer inflates"))
    func backupOfALargeContainerStreams() throws {
        // 200 MiB of data (a sparse file: cheap to make, real bytes to read).
        let big = root.appendingPathComponent("Documents/big.bin")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 200 << 20)
        try handle.close()
        let zip = containers.appendingPathComponent("big.zip")
        let measured = try Measured(["sandbox", "backup", app, "--containers", containers.path, "-o", zip.path])
        #expect(measured.status == 0, "\(measured.stderr)")
        // Holding the file, or the archive, in memory would take 200 MiB or more.
        #expect(measured.peakMiB < 100, "peak RSS \(measured.peakMiB) MiB")
        let check =
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.getinfo('Documents/big.bin').file_size == 200 << 20\nassert z.testzip() is None"
        #expect(Self.runPython(check, [zip.path]), "Python reads the archive back, CRC-32s included")
    }

    @Test(
        .enabled(if: Python.executable != nil, "needs python3"),
        .enabled(if: Sanitizer.active == nil, "measures memory, which a sanitizer inflates"))
    func restoreStreamsAndRefusesBombs() throws {
        let zip = containers.appendingPathComponent("zeros.zip")
        let forge = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                with z.open("Documents/zeros.bin", "w") as f:
                    for _ in range(128):
                        f.write(bytes(1 << 20))
            """
        #expect(Self.runPython(forge, [zip.path]))
        let before = try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted()

        // 128 MiB from 128 KiB: refused under the default limits, before writing.
        let refused = try Measured(["sandbox", "restore", app, "--containers", containers.path, zip.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("invalidBackup") && refused.stderr.contains("Documents/zeros.bin"))
        #expect(try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted() == before)

        // Allowed by a raised ratio: restored, streaming, in far less memory than the entry.
        let allowed = try Measured([
            "sandbox", "restore", app, "--containers", containers.path, "--max-ratio", "5000", zip.path,
        ])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.peakMiB < 64, "peak RSS \(allowed.peakMiB) MiB")
        let size =
            try FileManager.default.attributesOfItem(
                atPath: root.appendingPathComponent("Documents/zeros.bin").path)[.size] as? Int
        #expect(size == 128 << 20)
    }

    @Test(.enabled(if: Python.executable != nil, "needs python3"))
    func restoreOfACorruptBackupChangesNothing() throws {
        let zip = containers.appendingPathComponent("bad.zip")
        let forge = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
                z.writestr("Documents/items.archive", "replaced")
                z.writestr("Documents/second.bin", "SSSSSSSSSSSSSSSS")
            data = bytearray(open(sys.argv[1], "rb").read())
            data[data.find(b"SSSSSSSS")] ^= 1
            open(sys.argv[1], "wb").write(data)
            """
        #expect(Self.runPython(forge, [zip.path]))
        let result = try CLIRunner.run(["sandbox", "restore", app, "--containers", containers.path, zip.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("CRC-32") && result.stderr.contains("Documents/second.bin"), "\(result.stderr)")
        #expect(
            try String(contentsOf: root.appendingPathComponent("Documents/items.archive"), encoding: .utf8) == "items",
            "the good first entry was not restored either")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["Documents", "Library", "tmp"])
    }

    @Test func backupWithoutOutputIsAUsageError() throws {
        #expect(try CLIRunner.run(["sandbox", "backup", app]).status == 64)
    }
}
