import Foundation
import Locking
import PropertyList
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `keepsake print|lint|convert`, run as a user would run them.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class PropertyListCommandTests: ScratchFiles {
    let scratch = TemporaryDirectory("keepsake-cli")

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

    @Test("lint and convert read a .strings file's pairs before an appended XML plist, and warn naming its line")
    func stringsFileWithTrailingTextIsReadWithAWarning() throws {
        let path = directory.appendingPathComponent("Localizable.strings").path
        let text =
            "\"greeting\" = \"Hello\";\n\"farewell\" = \"Bye\";\n<?xml version=\"1.0\"?>\n<plist><dict/></plist>\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let warning = "keepsake: warning: \(path): line 3, column 1: the text from here on is not a key = value pair"
        let lint = try CLIRunner.run(["lint", path])
        #expect(lint.status == 0)
        #expect(lint.stdout == "\(path): OK (openStep)\n")
        #expect(lint.stderr.hasPrefix(warning), "\(lint.stderr)")
        let convert = try CLIRunner.run(["convert", "--format", "json", "-o", "-", path])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(try PropertyListReader().read(Array(convert.stdout.utf8)) == ["greeting": "Hello", "farewell": "Bye"])
        #expect(convert.stderr.hasPrefix(warning), "\(convert.stderr)")
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
    /// A folder with a plist and an archive of it, for the commands that write with `-o`.
    struct Inputs {
        let directory = TemporaryDirectory("keepsake-output")
        let plist: URL
        let archive: URL

        init() throws {
            plist = directory.file("in.plist")
            try Data(try PropertyListWriter.xml.write(["a": 1])).write(to: plist)
            archive = directory.file("in.archive")
            let archived = try CLIRunner.run(["archive", plist.path, "-o", archive.path])
            #expect(archived.status == 0, "\(archived.stderr)")
        }

        /// The arguments that make `command` write to `destination`.
        func arguments(_ command: String, to destination: String) -> [String] {
            switch command {
            case "convert": ["convert", plist.path, "--format", "binary1", "-o", destination]
            case "archive": ["archive", plist.path, "-o", destination]
            default: ["unarchive", archive.path, "--format", "json", "-o", destination]
            }
        }

        func remove() { directory.remove() }
    }

    /// The file type bits of `path` itself (`S_IFIFO`, `S_IFCHR`, `S_IFREG`…).
    static func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// What `command` writes to standard output with `-o -`, to compare other
    /// destinations against.
    static func piped(_ command: String, _ inputs: Inputs) throws -> Data {
        let piped = try CLIRunner.run(inputs.arguments(command, to: "-"))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(!piped.stdoutBytes.isEmpty)
        return piped.stdoutBytes
    }

    @Test(
        "-o onto a FIFO writes into it, as plutil does, and the FIFO stays",
        arguments: ["convert", "archive", "unarchive"])
    func outputWritesIntoAFIFO(command: String) throws {
        let inputs = try Inputs()
        defer { inputs.remove() }
        let fifo = inputs.directory.file("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opening a FIFO for writing waits for a reader.
        let received = Locked(Data())
        let finished = DispatchSemaphore(value: 0)
        Thread {
            let data = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
            received.withLock { $0 = data }
            finished.signal()
        }.start()

        let result = try CLIRunner.run(inputs.arguments(command, to: fifo))
        #expect(result.status == 0, "\(result.stderr)")
        // A command that never opened the FIFO leaves the reader waiting for a writer:
        // this one lets it go.
        let release = open(fifo, O_WRONLY | O_NONBLOCK)
        if release >= 0 { close(release) }
        try #require(finished.wait(timeout: .now() + 10) == .success, "the reader of the FIFO never finished")
        #expect(received.withLock { $0 } == (try Self.piped(command, inputs)))
        #expect(Self.fileType(fifo) == S_IFIFO, "the FIFO was replaced")
    }

    @Test(
        "-o /dev/null succeeds and leaves the device alone; -o /dev/stdout is standard output",
        arguments: ["convert", "archive", "unarchive"])
    func outputToDevNullAndStdout(command: String) throws {
        let inputs = try Inputs()
        defer { inputs.remove() }
        let discarded = try CLIRunner.run(inputs.arguments(command, to: "/dev/null"))
        #expect(discarded.status == 0, "\(discarded.stderr)")
        #expect(discarded.stdout.isEmpty)
        #expect(Self.fileType("/dev/null") == S_IFCHR)

        let printed = try CLIRunner.run(inputs.arguments(command, to: "/dev/stdout"))
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdoutBytes == (try Self.piped(command, inputs)))
        let toErrors = try CLIRunner.run(inputs.arguments(command, to: "/dev/stderr"))
        #expect(toErrors.status == 0, "\(toErrors.stderr)")
        #expect(toErrors.stdout.isEmpty)
        // Only the JSON is text, which the runner's standard error keeps byte for byte.
        if command == "unarchive" {
            #expect(Data(toErrors.stderr.utf8) == (try Self.piped(command, inputs)))
        } else {
            #expect(!toErrors.stderr.isEmpty)
        }
    }

    @Test("-o to a path of standard output that is a regular file appends there, and replaces nothing")
    func standardOutputRedirectedToAFile() throws {
        let inputs = try Inputs()
        defer { inputs.remove() }
        let captured = inputs.directory.file("captured")
        try Data("before\n".utf8).write(to: captured)
        let executable = try #require(CLIRunner.executable)
        // Standard output is the file, opened for appending; -o names it through /dev/stdout.
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "exec \"$0\" unarchive \"$1\" --format json -o /dev/stdout >>\"$2\"", executable.path,
                inputs.archive.path, captured.path,
            ])
        #expect(result.status == .exited(0), "\(result.errorText)")
        let text = String(decoding: try Data(contentsOf: captured), as: UTF8.self)
        #expect(text.hasPrefix("before\n{"), "the file was replaced, not written through: \(text)")
    }

    @Test("-o /dev/null is accepted by every verb that takes -o")
    func everyVerbWritesToDevNull() throws {
        let inputs = try Inputs()
        defer { inputs.remove() }
        let plist = inputs.plist.path
        let before = try Data(contentsOf: inputs.plist)
        for arguments in [
            ["extract", "a", "xml1", plist], ["insert", "b", "-integer", "2", plist],
            ["replace", "a", "-string", "x", plist], ["remove", "a", plist],
            ["convert", plist, "--format", "objc"], ["convert", plist, "--format", "swift"],
        ] {
            let result = try CLIRunner.run(arguments + ["-o", "/dev/null"])
            #expect(result.status == 0, "\(arguments[0]): \(result.stderr)")
        }
        #expect(try Data(contentsOf: inputs.plist) == before, "an edit sent to /dev/null changed its input")
        #expect(Self.fileType("/dev/null") == S_IFCHR)
    }

    /// The device number of `/dev/null`, for a copy of it in a scratch folder.
    static let nullDevice = deviceNumber(of: "/dev/null")

    static func deviceNumber(of path: String) -> dev_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_rdev : 0
    }

    static let canMakeDeviceNodes: Bool = {
        let scratch = TemporaryDirectory("keepsake-mknod")
        defer { scratch.remove() }
        // A name not yet taken: mknod makes the node itself.
        return mknod(scratch.file("null").path, S_IFCHR | 0o600, Self.nullDevice) == 0
    }()

    @Test(
        "-o onto a device node (a copy of /dev/null) writes into it and the node stays",
        .enabled(if: canMakeDeviceNodes, "making a device node needs CAP_MKNOD"),
        arguments: ["convert", "archive", "unarchive"])
    func outputWritesIntoADevice(command: String) throws {
        let inputs = try Inputs()
        defer { inputs.remove() }
        let device = inputs.directory.file("null").path
        #expect(mknod(device, S_IFCHR | 0o600, Self.nullDevice) == 0)

        let result = try CLIRunner.run(inputs.arguments(command, to: device))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.fileType(device) == S_IFCHR, "the device node was replaced")
    }

    @Test("-o onto a directory is refused, and the directory stays")
    func outputRefusesADirectory() throws {
        let inputs = try Inputs()
        defer { inputs.remove() }
        let folder = inputs.directory.file("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let result = try CLIRunner.run(inputs.arguments("convert", to: folder.path))
        #expect(result.status != 0)
        #expect(Self.fileType(folder.path) == S_IFDIR)
    }

    @Test func closedStandardOutputIsAnErrorNotACrash() throws {
        let directory = TemporaryDirectory("keepsake-closed")
        defer { directory.remove() }
        let source = directory.file("in.plist")
        try Data(try PropertyListWriter.xml.write(["a": 1])).write(to: source)
        let executable = try #require(CLIRunner.executable)
        // `>&-` closes standard output: a write to it fails with EBADF, which
        // FileHandle.write(_:) turns into a trap.
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "exec \"$0\" convert \"$1\" --format xml1 -o - >&- 2>/dev/null", executable.path, source.path])
        #expect(result.status == .exited(1), "ended by a signal or another code")
    }
}
