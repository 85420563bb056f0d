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
        try ChildProcess(try built(name), arguments, environment: environment(containers))
    }

    /// Runs the port to its end, with its standard input closed; a signal that ended it
    /// is reported as 128 plus its number, as a shell does.
    static func run(_ name: String, _ arguments: [String], containers: URL) throws -> Result {
        let result = try ChildProcess.run(try built(name), arguments, environment: environment(containers))
        let status: Int32 =
            switch result.status {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        return Result(status: status, output: result.outputText, errors: result.errorText)
    }

    private static func built(_ name: String) throws -> URL {
        try #require(executable(named: name), "\(name) is not built")
    }

    private static func environment(_ containers: URL) -> [String: String?] {
        ["KEEPSAKE_CONTAINERS": containers.path, "KEEPSAKE_APP_ID": ""]
    }
}
