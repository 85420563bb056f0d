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

    /// Runs another program the same way (a peer such as `plutil`, a compiler).
    static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Drain stderr concurrently so a chatty child never blocks on a full pipe.
        nonisolated(unsafe) var errorData = Data()
        let errorReader = Thread { errorData = err.fileHandleForReading.readDataToEndOfFile() }
        errorReader.start()
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorReader.isFinished { usleep(1_000) }
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self),
            stdoutBytes: outputData)
    }
}
