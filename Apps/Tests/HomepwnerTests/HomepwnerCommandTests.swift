import Foundation
import TestSupport
import Testing

/// The `homepwner` executable's options, run as a user runs them.
@Suite(
    "homepwner command", .serialized,
    .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"))
struct HomepwnerCommandTests: ContainersOfItsOwn {
    let scratch = TemporaryDirectory("homepwner-tests")

    struct Result {
        var status: Int32
        /// Standard output and error together, in the order written.
        var output: String
    }

    /// Runs the executable to completion; one still running after the runner's deadline
    /// is killed, and the run throws.
    func run(_ arguments: [String]) throws -> Result {
        let executable = try #require(ServerProcess.executable)
        let result = try ChildProcess.run(executable, arguments, errors: .intoOutput)
        return Result(status: result.exitCode, output: result.outputText)
    }

    @Test("--help names the options")
    func help() throws {
        let result = try run(["--help"])
        #expect(result.status == 0)
        for option in ["--port", "--host", "--container", "--max-photo-bytes"] {
            #expect(result.output.contains(option))
        }
    }

    @Test(
        "Bad options are usage errors",
        arguments: [["--port", "70000"], ["--port", "http"], ["--max-photo-bytes", "0"]])
    func badOptions(_ arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 64)
        #expect(result.output.contains("Error"))
    }

    @Test("HOMEPWNER_PORT picks the port when --port is absent")
    func portFromEnvironment() async throws {
        let server = try ServerProcess(
            containers: containers, arguments: ["--container", containers.path], environment: ["HOMEPWNER_PORT": "0"])
        #expect(server.port != 8080 && server.port > 0)
        #expect(try await HTTP.send("GET", server.baseURL).status == 200)
        #expect(try server.terminate() == 0)
    }

    /// The server says it is serving only once SIGTERM is trapped, so a SIGTERM sent at
    /// that line saves and exits 0. Before, SIGTERM could still have its default action
    /// then and kill the server (exit 143): one start in five on a loaded machine.
    @Test("SIGTERM sent the moment the server says it is serving stops it cleanly, every time")
    func sigtermAtTheServingLine() throws {
        for start in 1...20 {
            let server = try ServerProcess(containers: containers)
            #expect(try server.terminate() == 0, "start \(start): \(server.log)")
        }
    }

    @Test("A port in use fails with a message, and the other server goes on")
    func portInUse() async throws {
        let first = try ServerProcess(containers: containers)
        let other = containers.appendingPathComponent("other")
        let result = try run(["--port", "\(first.port)", "--container", other.path])
        #expect(result.status != 0)
        #expect(result.output.lowercased().contains("address"))
        #expect(try await HTTP.send("GET", first.baseURL).status == 200)
        #expect(try first.terminate() == 0)
    }
}
