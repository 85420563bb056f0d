import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A command of keepsake's that lives in another package of the repository, because
/// it needs a dependency the library must not have (swift-syntax, a database client):
/// an executable found beside this one or on `PATH` (as git finds its subcommands), run
/// in this process's place so that its output and exit status are the command's.
struct CompanionCommand {
    /// The executable's name, e.g. `keepsake-cloud`.
    let name: String
    /// The package that builds it, for the message when it is missing.
    let package: String

    /// Runs the companion with `arguments`; returns only if it cannot.
    /// - Throws: `ExitCode(69)` (`EX_UNAVAILABLE`) when it is missing or cannot run.
    func replaceProcess(command: String, arguments: [String]) throws -> Never {
        guard let tool = locate() else {
            FileHandle.standardError.write(
                Data(
                    """
                    keepsake \(command): \(name) was not found beside keepsake or on PATH.
                    Build it with `swift build --package-path \(package)` and add \(package)/.build/debug to PATH.

                    """.utf8))
            throw ExitCode(69)
        }
        var pointers = ([tool] + arguments).map { strdup($0) } + [nil]
        execv(tool, &pointers)
        let reason = String(cString: strerror(errno))
        FileHandle.standardError.write(Data("keepsake \(command): cannot run \(tool): \(reason)\n".utf8))
        throw ExitCode(69)
    }

    /// The executable beside the running one, else the first on `PATH`.
    func locate() -> String? {
        var folders: [String] = []
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent().path) }
        folders += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return folders.lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
