public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program the tests start and then talk to while it runs: its output is collected
/// line by line, commands go to its standard input, and every wait ends with a
/// ``Timeout`` after ``deadline``, so a broken program fails the test instead of
/// hanging it.
public final class ChildProcess: Sendable {
    public enum Status: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
    }

    public struct Timeout: Error, CustomStringConvertible {
        public var waitingFor: String
        public var lines: [String]
        public var description: String { "timed out waiting for \(waitingFor); output so far: \(lines)" }
    }

    /// How long any wait lasts at most.
    public static let deadline: Duration = .seconds(20)

    public let pid: pid_t
    /// What the reader threads collected; a class so that they can share it.
    private final class Collected: Sendable {
        let output = Mutex(Data())
        let errors = Mutex(Data())
        /// How many of the two pipes have reached their end.
        let ended = Mutex(0)
    }
    private let collected = Collected()
    private let process: Process
    private let input: FileHandle

    /// Starts `executable` with `arguments`, its environment being this process's
    /// with `environment` laid over it.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        self.process = process
        pid = process.processIdentifier
        input = stdin.fileHandleForWriting
        let collected = collected
        for (pipe, isOutput) in [(stdout, true), (stderr, false)] {
            let reader = pipe.fileHandleForReading
            Thread {
                while case let chunk = reader.availableData, !chunk.isEmpty {
                    if isOutput {
                        collected.output.withLock { $0.append(chunk) }
                    } else {
                        collected.errors.withLock { $0.append(chunk) }
                    }
                }
                collected.ended.withLock { $0 += 1 }
            }.start()
        }
    }

    /// Everything written to standard output so far.
    public var output: String { collected.output.withLock { String(decoding: $0, as: UTF8.self) } }

    /// The complete lines written to standard output so far.
    public var lines: [String] {
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // what follows the last newline: empty, or a line still being written
        return lines
    }

    /// Everything written to standard error so far.
    public var errors: String { collected.errors.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Writes `command` and a newline to the program's standard input.
    public func send(_ command: String) {
        input.write(Data((command + "\n").utf8))
    }

    public func signal(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Polls until `condition` holds or `limit` passes.
    public func poll(_ what: String, within limit: Duration = deadline, _ condition: () -> Bool) throws {
        let end = ContinuousClock.now + limit
        while !condition() {
            if ContinuousClock.now > end { throw Timeout(waitingFor: what, lines: lines) }
            usleep(5_000)
        }
    }

    /// Waits until `line` has been printed `occurrence` times.
    public func waitFor(_ line: String, occurrence: Int = 1) throws {
        try poll(line) { lines.filter { $0 == line }.count >= occurrence }
    }

    /// Waits until the kernel reports the process stopped (`T` in `/proc/PID/stat`).
    public func waitUntilStopped() throws {
        try poll("the process to stop") {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            return stat[stat.index(close, offsetBy: 2)] == "T"
        }
    }

    /// Waits for the process to end, at most `limit`, and for its output to be read to
    /// the end.
    public func waitForExit(within limit: Duration = deadline) throws -> Status {
        try poll("the process to exit", within: limit) { !process.isRunning }
        try poll("its output to end") { collected.ended.withLock { $0 == 2 } }
        return process.terminationReason == .uncaughtSignal
            ? .signalled(process.terminationStatus) : .exited(process.terminationStatus)
    }

    /// Kills the process if it still runs (a stopped one too) and closes its input.
    public func end() {
        if process.isRunning {
            kill(pid, SIGKILL)
            kill(pid, SIGCONT)
            process.waitUntilExit()
        }
        try? input.close()
    }
}
