import Foundation
import KeyedArchive
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `keepsake port-check` and `keepsake cloud` run executables of the repository's
/// other packages (`keepsake-port-check` in Tools, `keepsake-cloud` in Cloud), which the
/// library does not build; here a stand-in on `PATH` shows what each is given.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class SubcommandToolTests {
    let scratch = TemporaryDirectory("keepsake-companion")
    var folder: URL { scratch.url }

    static let commands = [
        (command: "port-check", tool: "keepsake-port-check", package: "Tools", arguments: ["Item.swift", "Sources"]),
        (command: "cloud", tool: "keepsake-cloud", package: "Cloud", arguments: ["get", "--database", "x", "com.a.b"]),
    ]

    @Test("The companion runs from PATH with the arguments, its output and status passed through", arguments: commands)
    func runsTheTool(_ command: (command: String, tool: String, package: String, arguments: [String])) throws {
        let tool = folder.appendingPathComponent(command.tool)
        try "#!/bin/sh\necho \"ran: $*\"\necho \"a warning\" >&2\nexit 1\n".write(
            to: tool, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        let result = try CLIRunner.run(
            [command.command] + command.arguments, environment: ["PATH": folder.path + ":/usr/bin:/bin"])
        #expect(result.status == 1)
        #expect(result.stdout == "ran: \(command.arguments.joined(separator: " "))\n")
        #expect(result.stderr == "a warning\n")
    }

    @Test("port-check --archive hands the companion the classes the sample archive needs")
    func portCheckPassesASampleArchivesClasses() throws {
        let tool = folder.appendingPathComponent("keepsake-port-check")
        try "#!/bin/sh\necho \"ran: $*\"\n".write(to: tool, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        let archive = folder.appendingPathComponent("sample.archive")
        try KeyedArchiver.archivedData(withRootObject: ["made": Date(timeIntervalSince1970: 0)]).write(to: archive)
        let result = try CLIRunner.run(
            ["port-check", "--archive", archive.path, "Sources"], environment: ["PATH": folder.path + ":/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "ran: --classes NSDate,NSDictionary Sources\n")
    }

    @Test(
        "Without the companion, and without swift to build it, the command says in one line how to get it and exits 69",
        arguments: commands)
    func missingTool(_ command: (command: String, tool: String, package: String, arguments: [String])) throws {
        let result = try CLIRunner.run([command.command] + command.arguments, environment: ["PATH": folder.path])
        #expect(result.status == 69)
        #expect(result.stderr.contains("swift build -c release --package-path \(command.package)"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("Inside the repository, a missing companion is run through swift run", arguments: commands)
    func runsThroughSwiftRun(_ command: (command: String, tool: String, package: String, arguments: [String])) throws {
        // A stand-in `swift` shows the command line the real one would get.
        let swift = folder.appendingPathComponent("swift")
        try "#!/bin/sh\necho \"swift $*\"\n".write(to: swift, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
        let result = try CLIRunner.run([command.command] + command.arguments, environment: ["PATH": folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        let words = result.stdout.split(separator: " ").map(String.init)
        #expect(Array(words.prefix(4)) == ["swift", "run", "--quiet", "--package-path"], "\(result.stdout)")
        #expect(words.count > 4 && words[4].hasSuffix("/\(command.package)"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix(" \(command.tool) \(command.arguments.joined(separator: " "))\n"))
    }
}
