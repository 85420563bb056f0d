import Foundation
import PropertyList
import Testing

/// `keepsake print|lint|convert`, run as a user would run them.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class PropertyListCommandTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func file(_ name: String, _ value: PropertyListValue, format: PropertyListFormat = .binary) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(try PropertyListWriter(format: format).write(value)).write(to: url)
        return url.path
    }

    @Test func printShowsEveryValue() throws {
        let path = try file("item.plist", ["name": "Rusty Spork", "valueInDollars": 42, "tags": ["a"]])
        let result = try CLIRunner.run(["print", path])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""name" => "Rusty Spork""#))
        #expect(result.stdout.contains(#""valueInDollars" => 42"#))
        #expect(result.stdout.contains(#"0 => "a""#))
    }

    @Test func printReadsStandardInput() throws {
        let bytes = try PropertyListWriter.binary.write(["k": true])
        let result = try CLIRunner.run(["print", "-"], stdin: Data(bytes))
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""k" => true"#))
    }

    @Test func lintReportsEachFileAndFailsOnAnyInvalidOne() throws {
        let good = try file("good.plist", ["a": 1])
        let bad = directory.appendingPathComponent("bad.plist").path
        try Data("bplist00 not really".utf8).write(to: URL(fileURLWithPath: bad))
        let allGood = try CLIRunner.run(["lint", good])
        #expect(allGood.status == 0)
        #expect(allGood.stdout == "\(good): OK (binary)\n")
        let mixed = try CLIRunner.run(["lint", good, bad])
        #expect(mixed.status == 1)
        let lines = mixed.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last?.hasPrefix("\(bad): ") == true)
        #expect(lines.last?.contains("OK") == false)
    }

    @Test func convertWritesTheRequestedFormatToAnotherFile() throws {
        let value: PropertyListValue = ["name": "Spork", "list": [1, 2.5, false]]
        let source = try file("source.plist", value)
        let target = directory.appendingPathComponent("out.bin").path
        let result = try CLIRunner.run(["convert", source, "--format", "binary1", "-o", target])
        #expect(result.status == 0, "\(result.stderr)")
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: target)))
        #expect(PropertyListFormat.detect(written) == .binary)
        #expect(try PropertyListReader().read(written) == value)
    }

    @Test func convertWithoutOutputReplacesTheFile() throws {
        let value: PropertyListValue = ["a": ["b"]]
        let path = try file("in-place.plist", value)
        let result = try CLIRunner.run(["convert", path, "--format", "binary1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try PropertyListReader().read([UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) == value)
    }

    @Test func usageErrorsExit64() throws {
        #expect(try CLIRunner.run(["convert"]).status == 64)
        #expect(try CLIRunner.run(["convert", "x.plist", "--format", "yaml"]).status == 64)
        #expect(try CLIRunner.run(["lint"]).status == 64)
        #expect(try CLIRunner.run(["frobnicate"]).status == 64)
    }

    @Test func unreadableInputFailsWithAMessage() throws {
        let bad = directory.appendingPathComponent("truncated.plist").path
        let bytes = try PropertyListWriter.binary.write(["k": "v"])
        try Data(bytes.dropLast(5)).write(to: URL(fileURLWithPath: bad))
        let result = try CLIRunner.run(["print", bad])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Error"))
        #expect(result.stdout.isEmpty)
    }
}

/// Where `keepsake` writes: never over a FIFO or device, and a closed standard output is
/// an error, not a crash.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
struct OutputDestinationTests {
    @Test func convertRefusesToReplaceAFIFO() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-fifo-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("in.plist")
        try Data(try PropertyListWriter.xml.write(["a": 1])).write(to: source)
        let fifo = directory.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)

        let result = try CLIRunner.run(["convert", source.path, "--format", "binary1", "-o", fifo])
        #expect(result.status != 0)
        #expect(result.stderr.contains("not a regular file"), "\(result.stderr)")
        let type = try FileManager.default.attributesOfItem(atPath: fifo)[.type] as? FileAttributeType
        #expect(type != .typeRegular, "the FIFO was replaced by a file")
        // Standard output is `-`, not a device path.
        let piped = try CLIRunner.run(["convert", source.path, "--format", "xml1", "-o", "-"])
        #expect(piped.status == 0)
        #expect(piped.stdout.contains("<integer>1</integer>"))
    }

    @Test func closedStandardOutputIsAnErrorNotACrash() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-closed-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("in.plist")
        try Data(try PropertyListWriter.xml.write(["a": 1])).write(to: source)
        let executable = try #require(CLIRunner.executable)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // `>&-` closes standard output: a write to it fails with EBADF, which
        // FileHandle.write(_:) turns into a trap.
        process.arguments = [
            "-c", "exec \"$0\" convert \"$1\" --format xml1 -o - >&- 2>/dev/null", executable.path, source.path,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "ended by a signal")
        #expect(process.terminationStatus == 1)
    }
}
