import Foundation
import Testing

/// `keepsake port-check` runs the Tools package's `keepsake-port-check`, which the
/// library does not build; here a stand-in on `PATH` shows what it is given and returns.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class PortCheckCommandTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-port-check-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("port-check runs keepsake-port-check from PATH with the paths, its output and status passed through")
    func runsTheTool() throws {
        let tool = folder.appendingPathComponent("keepsake-port-check")
        try "#!/bin/sh\necho \"checked: $*\"\necho \"a warning\" >&2\nexit 1\n".write(
            to: tool, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        let result = try CLIRunner.run(
            ["port-check", "Item.swift", "Sources"], environment: ["PATH": folder.path + ":/usr/bin:/bin"])
        #expect(result.status == 1)
        #expect(result.stdout == "checked: Item.swift Sources\n")
        #expect(result.stderr == "a warning\n")
    }

    @Test("Without keepsake-port-check, port-check says how to build it and exits 69")
    func missingTool() throws {
        let result = try CLIRunner.run(["port-check", "Item.swift"], environment: ["PATH": folder.path])
        #expect(result.status == 69)
        #expect(result.stderr.contains("swift build --package-path Tools"), "\(result.stderr)")
    }
}
