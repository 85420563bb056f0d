import Foundation
import TestSupport
import Testing

/// The ports' built executables.
enum Port {
    static func executable(named name: String) -> URL? { BuiltProducts.executable(named: name) }

    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }
}

/// A suite about one port, run with the app's container in a scratch folder of the
/// suite's own (Swift Testing makes a suite instance per test). The port's identity is
/// its executable's name, as `AppContainer.main` derives it.
protocol PortSuite {
    static var port: String { get }
    var scratch: TemporaryDirectory { get }
}

extension PortSuite {
    /// The folder the app's container is made in.
    var containers: URL { scratch.url }
    /// The app's container.
    var container: URL { containers.appendingPathComponent(Self.port) }

    /// Starts the port and leaves it running.
    func start(_ arguments: String...) throws -> ChildProcess {
        try ChildProcess(try built(), arguments, environment: environment)
    }

    /// Runs the port to its end, with its standard input closed; a signal that ended it
    /// is reported as 128 plus its number, as a shell does.
    func run(_ arguments: String...) throws -> Port.Result {
        let result = try ChildProcess.run(try built(), arguments, environment: environment)
        let status: Int32 =
            switch result.status {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        return Port.Result(status: status, output: result.outputText, errors: result.errorText)
    }

    private func built() throws -> URL {
        try #require(Port.executable(named: Self.port), "\(Self.port) is not built")
    }

    private var environment: [String: String?] {
        ["KEEPSAKE_CONTAINERS": containers.path, "KEEPSAKE_APP_ID": ""]
    }
}
