import AppSandbox
import Foundation
import KeyedArchive
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs `LifecycleTestHelper` (an app with an item store, see its main.swift) as a child
/// process, sends it real signals and checks the callbacks it printed and the archive
/// it left.
@Suite(.enabled(if: LifecycleHelper.url != nil, "LifecycleTestHelper is not built next to the tests"))
struct LifecycleSignalTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func terminationSignalRunsCallbacksInApplesOrderAndSaves(signal: Int32) throws {
        let helper = try LifecycleHelper()
        defer { helper.cleanUp() }
        try helper.waitFor("didBecomeActive")
        helper.send("add one")
        try helper.waitFor("added one")
        kill(helper.pid, signal)
        let status = try helper.waitForExit()
        #expect(status == .exited(0))
        #expect(
            helper.lines == [
                "didFinishLaunching", "didBecomeActive", "added one",
                "willResignActive", "didEnterBackground", "store count=1 dirty=false",
                "willTerminate", "store count=1 dirty=false", "exiting",
            ])
        #expect(try helper.savedNames() == ["one"])
    }

    @Test func terminalStopSavesAndStopsThenContinueComesBack() throws {
        let helper = try LifecycleHelper()
        defer { helper.cleanUp() }
        try helper.waitFor("didBecomeActive")
        helper.send("add one")
        try helper.waitFor("added one")
        kill(helper.pid, SIGTSTP)
        try helper.waitFor("didSuspend")
        try helper.waitUntilStopped()
        #expect(try helper.savedNames() == ["one"], "the store is saved before the process stops")
        #expect(
            helper.lines.suffix(4) == [
                "willResignActive", "didEnterBackground", "store count=1 dirty=false", "didSuspend",
            ])

        kill(helper.pid, SIGCONT)
        try helper.waitFor("didBecomeActive", occurrence: 2)
        #expect(helper.lines.suffix(2) == ["willEnterForeground", "didBecomeActive"])

        kill(helper.pid, SIGTERM)
        #expect(try helper.waitForExit() == .exited(0))
    }

    @Test("A class item changed in place is saved on entering the background, and another process reads the edit")
    func inPlaceEditOfAClassItemIsSavedInTheBackground() throws {
        let helper = try LifecycleHelper()
        defer { helper.cleanUp() }
        try helper.waitFor("didBecomeActive")
        helper.send("add one")
        helper.send("save")
        try helper.waitFor("saved")
        helper.send("rename one edited")
        try helper.waitFor("renamed edited dirty=true")
        kill(helper.pid, SIGTSTP)
        try helper.waitFor("didSuspend")
        try helper.waitUntilStopped()
        #expect(helper.lines.contains("store count=1 dirty=false"))
        #expect(try helper.savedNames() == ["edited"], "the in-place edit was not saved")
        kill(helper.pid, SIGCONT)
        kill(helper.pid, SIGTERM)
        #expect(try helper.waitForExit() == .exited(0))
    }

    @Test func killLosesWhatWasNotSavedAndGivesNoCallback() throws {
        let helper = try LifecycleHelper()
        defer { helper.cleanUp() }
        try helper.waitFor("didBecomeActive")
        helper.send("add one")
        helper.send("save")
        try helper.waitFor("saved")
        helper.send("add two")
        try helper.waitFor("added two")
        kill(helper.pid, SIGKILL)
        #expect(try helper.waitForExit() == .signalled(SIGKILL))
        #expect(!helper.lines.contains("willTerminate"), "SIGKILL cannot be caught: no callback, as documented")
        #expect(try helper.savedNames() == ["one"], "only what was saved before the kill survives")
    }

    @Test func expiringBackgroundTaskRunsItsHandlerThenSuspends() throws {
        let helper = try LifecycleHelper(["--background-task", "--grace", "50", "--limit", "300"])
        defer { helper.cleanUp() }
        try helper.waitFor("didBecomeActive")
        kill(helper.pid, SIGHUP)
        try helper.waitFor("didSuspend")
        #expect(helper.lines.suffix(4) == ["didEnterBackground", "store count=0 dirty=false", "expired", "didSuspend"])
        kill(helper.pid, SIGTERM)
        #expect(try helper.waitForExit() == .exited(0))
        #expect(helper.lines.suffix(3) == ["willTerminate", "store count=0 dirty=false", "exiting"])
    }
}

/// One running `LifecycleTestHelper` with its own container folder.
final class LifecycleHelper: Sendable {
    enum Status: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }
    struct Timeout: Error, CustomStringConvertible {
        var waitingFor: String
        var lines: [String]
        var description: String { "timed out waiting for \(waitingFor); output so far: \(lines)" }
    }

    static let url: URL? = BuiltProducts.executable(named: "LifecycleTestHelper")

    /// Every wait ends by this long, so a broken helper fails the test instead of hanging it.
    static let deadline: Duration = .seconds(20)

    let folder: URL
    let pid: pid_t
    private final class Lines: Sendable { let lines = Mutex<[String]>([]) }
    private let output = Lines()
    private let process: Process
    private let input: FileHandle

    init(_ arguments: [String] = []) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keepsake-lifecycle-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = LifecycleHelper.url
        process.arguments = [folder.path] + arguments
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        self.process = process
        pid = process.processIdentifier
        input = stdin.fileHandleForWriting
        let reader = stdout.fileHandleForReading
        let output = output
        Thread {
            var pending = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    output.lines.withLock { $0.append(line) }
                }
            }
        }.start()
    }

    var lines: [String] { output.lines.withLock { $0 } }

    func send(_ command: String) {
        input.write(Data((command + "\n").utf8))
    }

    /// Polls until `condition` holds or the deadline passes.
    private func poll(_ what: String, _ condition: () -> Bool) throws {
        let end = ContinuousClock.now + Self.deadline
        while !condition() {
            if ContinuousClock.now > end { throw Timeout(waitingFor: what, lines: lines) }
            usleep(5_000)
        }
    }

    func waitFor(_ line: String, occurrence: Int = 1) throws {
        try poll(line) { lines.filter { $0 == line }.count >= occurrence }
    }

    /// Waits until the kernel reports the process stopped (`T` in `/proc/PID/stat`).
    func waitUntilStopped() throws {
        try poll("the process to stop") {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            return stat[stat.index(close, offsetBy: 2)] == "T"
        }
    }

    func waitForExit() throws -> Status {
        try poll("the process to exit") { !process.isRunning }
        // The reader thread may still be draining the pipe.
        try? poll("the output to end") { lines.last == "exiting" || process.terminationReason == .uncaughtSignal }
        return process.terminationReason == .uncaughtSignal
            ? .signalled(process.terminationStatus) : .exited(process.terminationStatus)
    }

    /// The names in the helper's saved archive.
    func savedNames() throws -> [String] {
        let archive = folder.appendingPathComponent("org.keepsake.lifecycle-helper/Documents/items.archive")
        let data = try Data(contentsOf: archive)
        return try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Note.self, from: data)?.map(\.name) ?? []
    }

    func cleanUp() {
        if process.isRunning {
            kill(pid, SIGKILL)
            kill(pid, SIGCONT)
            process.waitUntilExit()
        }
        try? input.close()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// The helper's model, as it archives it.
struct Note: KeyedCoding, Sendable {
    var name: String
    func encode(with coder: KeyedEncoder) { coder.encode(name, forKey: "name") }
    init(coder: KeyedDecoder) throws { name = try coder.decode(String.self, forKey: "name") }
    static var archiveClassName: String { "LifecycleTestHelper.Note" }
}
