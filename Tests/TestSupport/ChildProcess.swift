public import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// The one way the tests start a program: run it to completion (``run(_:_:input:environment:output:errors:within:)``)
/// or talk to it while it runs (``init(_:_:environment:input:output:errors:passing:newSession:)``).
///
/// Its output is drained as it comes, so a chatty program never blocks on a full pipe,
/// and every wait ends with a ``Timeout`` after ``deadline``, so a broken program fails
/// the test instead of hanging it.
///
/// It starts programs with `posix_spawn` rather than Foundation's `Process`, whose
/// `run()` crashed the test process when several threads started programs at once. The
/// child gets the default action for every signal and an empty signal mask, whatever this
/// process blocks or ignores, and inherits no descriptor but those it is given.
public final class ChildProcess: Sendable {
    public enum Status: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    public struct Timeout: Error, CustomStringConvertible {
        public var waitingFor: String
        public var lines: [String]
        public var errors: String
        public var description: String {
            "timed out waiting for \(waitingFor); output so far: \(lines); standard error: \(errors)"
        }
    }

    public struct LaunchFailure: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot start \(path): \(reason)" }
    }

    /// What a program that ran to completion left.
    public struct Result: Sendable {
        public var status: Status
        /// Standard output, byte for byte.
        public var output: Data
        /// Standard error, byte for byte.
        public var errors: Data

        /// The exit code, or -1 when a signal ended the program.
        public var exitCode: Int32 {
            if case .exited(let code) = status { code } else { -1 }
        }
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    /// Where one of the program's standard streams goes.
    public enum Stream: Sendable {
        /// A pipe this side writes (standard input) or reads and keeps (standard output
        /// and error): ``send(_:)``, ``output``, ``errors``.
        case pipe
        /// This process's own stream. A program that starts a daemon holding its output
        /// open (`pg_ctl start`) wants this: its end is then its exit alone.
        case inherit
        /// `/dev/null`.
        case discard
        /// Standard error only: into the standard-output pipe, one log in the order written.
        case intoOutput
    }

    /// How long any wait lasts at most.
    public static let deadline: Duration = .seconds(20)

    public let pid: pid_t
    private let input: Locked<Int32?>
    private let standardOutput = Collector()
    private let standardError = Collector()
    private let exit = Event<Status>()

    /// Starts `executable` with `arguments`. Its environment is this process's with
    /// `environment` laid over it; a nil value removes that variable. `passing` gives the
    /// program these descriptors of this process as its descriptors 3, 4 and on. With
    /// `newSession` the program leads a process group of its own, which
    /// ``signalGroup(_:)`` reaches.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String?] = [:],
        input inputStream: Stream = .pipe, output outputStream: Stream = .pipe, errors errorStream: Stream = .pipe,
        passing: [Int32] = [], newSession: Bool = false
    ) throws {
        precondition(errorStream != .intoOutput || outputStream == .pipe, "errors go into an output pipe")
        var inherited = ProcessInfo.processInfo.environment
        for (name, value) in environment { inherited[name] = value }
        let pipes = Pipes(
            input: inputStream == .pipe ? try Pipe() : nil,
            output: outputStream == .pipe || errorStream == .intoOutput ? try Pipe() : nil,
            errors: errorStream == .pipe ? try Pipe() : nil)
        var actions = FileActions()
        actions.connect(0, inputStream, pipe: pipes.input?.read)
        actions.connect(1, outputStream, pipe: pipes.output?.write)
        actions.connect(2, errorStream, pipe: errorStream == .intoOutput ? pipes.output?.write : pipes.errors?.write)
        for (offset, descriptor) in passing.enumerated() { actions.duplicate(descriptor, as: Int32(3 + offset)) }
        try actions.closeAll(from: Int32(3 + passing.count))
        do {
            pid = try Self.spawn(
                executable.path, arguments: [executable.path] + arguments,
                environment: inherited.map { "\($0.key)=\($0.value)" }, actions: &actions, newSession: newSession)
        } catch {
            for end in pipes.all { close(end) }
            throw error
        }
        // The child holds its own copies now; the ends it uses are closed here so that
        // its exit is the end of its output.
        for end in [pipes.input?.read, pipes.output?.write, pipes.errors?.write] { if let end { close(end) } }
        input = Locked(pipes.input?.write)
        standardOutput.drain(pipes.output?.read)
        standardError.drain(pipes.errors?.read)
        let (pid, exit) = (pid, exit)
        Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            // WIFEXITED / WTERMSIG, which Swift does not import as macros.
            let signal = status & 0x7f
            exit.set(signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal))
        }.start()
    }

    deinit { end() }

    /// Runs `executable` to its end, feeding it `input`, and returns what it left. A
    /// program still running after `limit` is killed and the wait throws ``Timeout``.
    public static func run(
        _ executable: URL, _ arguments: [String], input: Data? = nil, environment: [String: String?] = [:],
        output: Stream = .pipe, errors: Stream = .pipe, within limit: Duration = deadline
    ) throws -> Result {
        let process = try ChildProcess(executable, arguments, environment: environment, output: output, errors: errors)
        defer { process.end() }
        // Fed from a thread of its own, so that a program that writes before it reads
        // all of its input, or never reads it, does not stop this side.
        Thread {
            if let input { process.write(input) }
            process.closeInput()
        }.start()
        let status = try process.waitForExit(within: limit)
        return Result(
            status: status, output: process.standardOutput.data, errors: process.standardError.data)
    }

    /// Everything written to standard output so far.
    public var output: String { String(decoding: standardOutput.data, as: UTF8.self) }

    /// The complete lines written to standard output so far.
    public var lines: [String] {
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // what follows the last newline: empty, or a line still being written
        return lines
    }

    /// Everything written to standard error so far.
    public var errors: String { String(decoding: standardError.data, as: UTF8.self) }

    /// Whether the program has not ended yet (a stopped one has not).
    public var isRunning: Bool { exit.value == nil }

    /// Writes `command` and a newline to the program's standard input.
    public func send(_ command: String) {
        write(Data((command + "\n").utf8))
    }

    /// Writes `data` to the program's standard input. A program that has closed its end
    /// gets nothing more; the write does not raise SIGPIPE here, which ``ignoreBrokenPipes``
    /// turned off.
    public func write(_ data: Data) {
        input.withLock { descriptor in
            guard let descriptor else { return }
            data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }

    /// Closes the program's standard input, so that it reads the end of it.
    public func closeInput() {
        input.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }

    /// Sends `signal` to the program, unless it has ended (its pid may be another's by then).
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Sends `signal` to the program's process group: with `newSession`, it and every
    /// process it started.
    public func signalGroup(_ signal: Int32) {
        kill(-pid, signal)
    }

    /// Polls until `condition` holds or `limit` passes.
    public func poll(_ what: String, within limit: Duration = deadline, _ condition: () -> Bool) throws {
        let end = ContinuousClock.now + limit
        while !condition() {
            if ContinuousClock.now > end { throw Timeout(waitingFor: what, lines: lines, errors: errors) }
            usleep(5_000)
        }
    }

    /// Waits until `line` has been printed `occurrence` times.
    public func waitFor(_ line: String, occurrence: Int = 1, within limit: Duration = deadline) throws {
        try poll(line, within: limit) { lines.filter { $0 == line }.count >= occurrence }
    }

    /// Waits until some printed line satisfies `matches`, and returns it.
    @discardableResult
    public func waitForLine(
        _ what: String, within limit: Duration = deadline, where matches: (String) -> Bool
    ) throws -> String {
        var found: String?
        try poll(what, within: limit) {
            found = lines.first(where: matches)
            return found != nil
        }
        return found!
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

    /// Waits for the program to end, at most `limit`, and for its output to be read to
    /// the end. A program still running then is killed, and the wait throws ``Timeout``.
    @discardableResult
    public func waitForExit(within limit: Duration = deadline) throws -> Status {
        let end = ContinuousClock.now + limit
        guard let status = exit.wait(until: end) else {
            self.end()
            throw Timeout(waitingFor: "the process to exit", lines: lines, errors: errors)
        }
        // Output ends when the last holder of the pipes exits: a grandchild the program
        // left running may hold them longer, which is a failure of the test.
        guard standardOutput.ended.wait(until: end) != nil, standardError.ended.wait(until: end) != nil else {
            throw Timeout(waitingFor: "its output to end", lines: lines, errors: errors)
        }
        return status
    }

    /// Kills the program if it still runs (a stopped one too), waits for it and closes
    /// its input.
    public func end() {
        if isRunning {
            kill(pid, SIGKILL)
            kill(pid, SIGCONT)
            _ = exit.wait(until: .now + Self.deadline)
        }
        closeInput()
    }

    /// Called once before any program starts: a write to a program that has exited then
    /// fails with EPIPE instead of killing the test process. (Children get SIGPIPE's
    /// default action back; see ``spawn(_:arguments:environment:actions:newSession:)``.)
    private static let ignoreBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    private static func spawn(
        _ path: String, arguments: [String], environment: [String], actions: inout FileActions, newSession: Bool
    ) throws -> pid_t {
        Self.ignoreBrokenPipes
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        // glibc's POSIX_SPAWN_SETSID, which Swift's Glibc module leaves out with the rest
        // of what needs _GNU_SOURCE.
        if newSession { flags |= 0x80 }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions.actions, &attributes, argv, envp)
        guard result == 0 else {
            throw LaunchFailure(path: path, reason: String(cString: strerror(result)))
        }
        return pid
    }
}

extension ChildProcess {
    /// A pipe whose two ends close on exec. (A program this runner starts inherits
    /// nothing beyond what it is given anyway; see ``FileActions/closeAll(from:)``.)
    private struct Pipe {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            read = ends[0]
            write = ends[1]
        }
    }

    private struct Pipes {
        var input: Pipe?
        var output: Pipe?
        var errors: Pipe?

        var all: [Int32] { [input, output, errors].compactMap { $0 }.flatMap { [$0.read, $0.write] } }
    }

    /// What the child does with its descriptors before it runs the program.
    private struct FileActions: ~Copyable {
        var actions = posix_spawn_file_actions_t()

        init() { posix_spawn_file_actions_init(&actions) }
        deinit {
            // The struct holds a pointer to glibc's list of actions; a copy frees it as well.
            var list = actions
            posix_spawn_file_actions_destroy(&list)
        }

        mutating func connect(_ descriptor: Int32, _ stream: Stream, pipe end: Int32?) {
            switch stream {
            case .pipe, .intoOutput: duplicate(end!, as: descriptor)
            case .inherit: break
            case .discard:
                posix_spawn_file_actions_addopen(
                    &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }

        /// dup2 clears close-on-exec on the copy; every other descriptor keeps it.
        mutating func duplicate(_ descriptor: Int32, as target: Int32) {
            posix_spawn_file_actions_adddup2(&actions, descriptor, target)
        }

        /// Closes every descriptor from `first` on in the child: what this process opened
        /// without close-on-exec (a test's lock file, held with `flock`) would otherwise
        /// live on in the program, and hold a lock past the test's own `close`.
        mutating func closeAll(from first: Int32) throws {
            // glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which needs _GNU_SOURCE
            // and so is not in Swift's Glibc module.
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
                throw LaunchFailure(path: "posix_spawn", reason: "the C library has no addclosefrom_np (glibc 2.34)")
            }
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, first)
        }
    }

    /// One of the program's outputs, read to its end by a thread of its own.
    private final class Collector: Sendable {
        private let bytes = Locked(Data())
        let ended = Event<Void>()

        var data: Data { bytes.withLock { $0 } }

        /// Reads `descriptor` to its end; with none (the stream is not a pipe), there
        /// is nothing to wait for.
        func drain(_ descriptor: Int32?) {
            guard let descriptor else { return ended.set(()) }
            Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    bytes.withLock { $0.append(contentsOf: buffer[..<count]) }
                }
                close(descriptor)
                ended.set(())
            }.start()
        }
    }

    /// A value set once by one thread and awaited, with a deadline, by others.
    private final class Event<Value: Sendable>: Sendable {
        private let state = Locked<Value?>(nil)
        private let signal = DispatchSemaphore(value: 0)

        var value: Value? { state.withLock { $0 } }

        func set(_ value: Value) {
            state.withLock { $0 = value }
            signal.signal()
        }

        /// The value once set, or nil when `deadline` passes first.
        func wait(until deadline: ContinuousClock.Instant) -> Value? {
            if let value { return value }
            let remaining = ContinuousClock.now.duration(to: deadline)
            let nanoseconds = max(
                0, remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000)
            guard signal.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else { return value }
            // Let every other waiter through too.
            signal.signal()
            return value
        }
    }
}
