import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `keepsake port-check PATH…`: reports the Foundation calls in Swift sources that
/// compile on Linux but bypass Keepsake, as `file:line:column: warning: …`; exit 1 when
/// there is any.
///
/// The checker reads syntax trees with swift-syntax, which the library does not depend
/// on: it is the `keepsake-port-check` executable of the repository's `Tools` package,
/// found beside this executable or on `PATH` (as git finds its subcommands), and run
/// in this process's place.
struct PortCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port-check",
        abstract: "Report Foundation calls that compile on Linux but bypass Keepsake (runs keepsake-port-check)."
    )

    @Argument(help: "Swift files, or folders searched for them.")
    var paths: [String]

    static let toolName = "keepsake-port-check"

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("Name at least one file or folder.") }
    }

    func run() throws {
        guard let tool = Self.locate() else {
            FileHandle.standardError.write(
                Data(
                    """
                    keepsake port-check: \(Self.toolName) was not found beside keepsake or on PATH.
                    Build it with `swift build --package-path Tools` and add Tools/.build/debug to PATH.

                    """.utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
        let arguments = [tool] + paths
        var pointers = arguments.map { strdup($0) } + [nil]
        execv(tool, &pointers)
        let reason = String(cString: strerror(errno))
        FileHandle.standardError.write(Data("keepsake port-check: cannot run \(tool): \(reason)\n".utf8))
        throw ExitCode(69)
    }

    /// `keepsake-port-check` beside the running executable, else the first on `PATH`.
    static func locate() -> String? {
        var folders: [String] = []
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent().path) }
        folders += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return folders.lazy.map { "\($0)/\(toolName)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
