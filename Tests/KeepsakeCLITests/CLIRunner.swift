import Foundation
import TestSupport

/// Runs the built `keepsake` binary through the tests' one runner, ``ChildProcess``, and
/// keeps what it printed in the shape the command tests compare.
struct CLIRunner {
    struct Result {
        /// The exit code, or -1 when a signal ended the program.
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

    /// Runs another program the same way (a peer such as `plutil`, a compiler).
    static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let result = try ChildProcess.run(executable, arguments, input: stdin, environment: environment)
        return Result(
            status: result.exitCode, stdout: result.outputText, stderr: result.errorText,
            stdoutBytes: result.output)
    }
}
