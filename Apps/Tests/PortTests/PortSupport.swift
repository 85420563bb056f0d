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

    static func run(_ name: String, _ arguments: [String], containers: URL) throws -> Result {
        let process = Process()
        process.executableURL = try #require(executable(named: name))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging([
            "KEEPSAKE_CONTAINERS": containers.path, "KEEPSAKE_APP_ID": "",
        ]) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self))
    }
}
