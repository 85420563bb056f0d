import Foundation
import Testing

/// `keepsake sandbox show|backup|restore`, on a container folder made for each test.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class SandboxCommandTests {
    let containers: URL
    let app = "com.example.Homepwner"
    var root: URL { containers.appendingPathComponent(app) }

    init() throws {
        containers = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-sandbox-cli-\(UUID())")
        for folder in ["Documents", "Library/Caches", "Library/Preferences", "tmp"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data("items".utf8).write(to: root.appendingPathComponent("Documents/items.archive"))
        try Data("prefs".utf8).write(to: root.appendingPathComponent("Library/Preferences/com.example.Homepwner.plist"))
        try Data(count: 4096).write(to: root.appendingPathComponent("Library/Caches/thumbnail"))
        try Data("scratch".utf8).write(to: root.appendingPathComponent("tmp/scratch"))
    }

    deinit {
        try? FileManager.default.removeItem(at: containers)
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

    @Test func backupWithoutOutputIsAUsageError() throws {
        #expect(try CLIRunner.run(["sandbox", "backup", app]).status == 64)
    }
}
