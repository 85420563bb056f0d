public import Foundation

/// Python 3, the peer many tests read our output with (`plistlib`, `json`, `zipfile`,
/// `os.getxattr`, `bpylist2`), run through ``ChildProcess``.
public enum Python {
    /// `python3` on the `PATH`, when the machine has one.
    public static let executable: URL? = ChildProcess.onPath("python3")

    /// Whether `python3` is there and can import `module`.
    public static func canImport(_ module: String) -> Bool {
        (try? run("import \(module)")) != nil
    }

    /// Runs `script` (`python3 -c`) with `arguments`, `input` on its standard input;
    /// its standard output. A missing Python or a failing script is a ``Failure``,
    /// which carries what the script wrote to standard error.
    public static func run(_ script: String, _ arguments: [String] = [], input: Data? = nil) throws -> Data {
        guard let executable else { throw Failure(description: "python3 is not on the PATH") }
        let result = try ChildProcess.run(executable, ["-c", script] + arguments, input: input)
        guard result.status == .exited(0) else {
            throw Failure(description: "python3 ended with \(result.status): \(result.errorText)")
        }
        return result.output
    }

    /// ``run(_:_:input:)``, its output as text.
    public static func text(_ script: String, _ arguments: [String] = [], input: String? = nil) throws -> String {
        String(decoding: try run(script, arguments, input: input.map { Data($0.utf8) }), as: UTF8.self)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }
}

extension ChildProcess {
    /// The executable called `name` in a folder of the `PATH`, as a shell finds it.
    public static func onPath(_ name: String) -> URL? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
