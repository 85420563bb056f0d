import Foundation
import TestSupport
import Testing

/// A port's built executable, run with its container in a scratch folder: its identity
/// is its executable's name, as `AppContainer.main` derives it.
enum Port {
    static func executable(named name: String) -> URL? { BuiltProducts.executable(named: name) }

    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Starts the port and leaves it running.
    static func start(_ name: String, _ arguments: [String], containers: URL) throws -> ChildProcess {
        try ChildProcess(
            try #require(executable(named: name), "\(name) is not built"), arguments,
            environment: ["KEEPSAKE_CONTAINERS": containers.path, "KEEPSAKE_APP_ID": ""])
    }

    /// Runs the port to its end.
    static func run(_ name: String, _ arguments: [String], containers: URL) throws -> Result {
        let process = try start(name, arguments, containers: containers)
        defer { process.end() }
        let status: Int32 =
            switch try process.waitForExit() {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        return Result(status: status, output: process.output, errors: process.errors)
    }
}
