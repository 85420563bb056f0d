import Foundation
import TestSupport

/// Runs the built `keepsake` binary and captures what it prints.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stdoutBytes: Data
    }

    /// The products folder holds the test bundle and the `keepsake` executable side by side.
    static let executable: URL? = BuiltProducts.executable(named: "keepsake")

    /// Runs `keepsake` with `arguments`; `environment` entries replace the inherited ones.
    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> Result {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        return try run(executable, arguments, stdin: stdin, environment: environment)
    }

    /// Runs another program the same way (a peer such as `plutil`, a compiler), through
    /// the tests' one child-process runner: output drained as it comes, a bounded wait.
    static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let child = try ChildProcess(executable, arguments, environment: environment)
        defer { child.end() }
        if let stdin { child.write(stdin) }
        child.closeInput()
        // Bounded, yet long enough for a full-size input under a sanitizer.
        let status: Int32 =
            switch try child.waitForExit(within: .seconds(300)) {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        return Result(status: status, stdout: child.output, stderr: child.errors, stdoutBytes: child.outputData)
    }
}
