import AppSandbox
import ArgumentParser
import Foundation

/// A command of keepsake's that lives in another package of the repository, because
/// it needs a dependency the library must not have (swift-syntax, a database client):
/// an executable found beside this one or on `PATH` (as git finds its subcommands), run
/// in this process's place so that its output and exit status are the command's. A
/// `keepsake` built inside the repository that finds neither runs the companion through
/// `swift run`, which builds it first.
struct CompanionCommand {
    /// The executable's name, e.g. `keepsake-cloud`.
    let name: String
    /// The package that builds it, for the message when it is missing.
    let package: String

    /// Runs the companion with `arguments`; returns only if it cannot.
    /// - Throws: `ExitCode(69)` (`EX_UNAVAILABLE`) when it is missing or cannot run.
    func replaceProcess(command: String, arguments: [String]) throws -> Never {
        let commandLine: [String]
        if let tool = locate() {
            commandLine = [tool] + arguments
        } else if let package = packageInRepository(), let swift = Self.onPath("swift") {
            // A first build takes minutes; without a word it would look like a hang.
            StandardStream.error.report("keepsake \(command): running \(name) through swift run in \(package)")
            commandLine = [swift, "run", "--quiet", "--package-path", package, name] + arguments
        } else {
            StandardStream.error.report(
                "keepsake \(command): needs \(name), which is not beside keepsake or on PATH: build it in a Keepsake "
                    + "checkout with `swift build -c release --package-path \(package)` and put "
                    + "\(package)/.build/release/\(name) on PATH.")
            throw ExitCode(69)
        }
        var pointers = commandLine.map { strdup($0) } + [nil]
        execv(commandLine[0], &pointers)
        let reason = String(cString: strerror(errno))
        StandardStream.error.report("keepsake \(command): cannot run \(commandLine[0]): \(reason)")
        throw ExitCode(69)
    }

    /// The executable beside the running one, else the first on `PATH`.
    func locate() -> String? {
        if let executable = Bundle.main.executableURL {
            let beside = executable.deletingLastPathComponent().appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        }
        return Self.onPath(name)
    }

    /// The companion's package folder when this `keepsake` was built inside the
    /// repository (`<repository>/.build/…/keepsake`), else nil. The repository is known
    /// by its `keepsake` sources, so another project's `Tools/` is never run.
    func packageInRepository() -> String? {
        guard var folder = Bundle.main.executableURL?.deletingLastPathComponent() else { return nil }
        while folder.path != "/" {
            folder.deleteLastPathComponent()
            let candidate = folder.appendingPathComponent(package)
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path),
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources/KeepsakeCLI").path)
            {
                return candidate.path
            }
        }
        return nil
    }

    /// The first executable called `name` in a folder of `PATH`.
    static func onPath(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").lazy.map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
