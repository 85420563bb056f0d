import AppSandbox
import Foundation
import KeyedArchive
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs `LifecycleTestHelper` (an app with an item store, see its main.swift) as a child
/// process, sends it real signals and checks the callbacks it printed and the archive
/// it left.
@Suite(
    .enabled(if: LifecycleHelper.url != nil, "LifecycleTestHelper is not built next to the tests"),
    // TSan runs a signal's handler only when the receiving thread next enters a call it
    // intercepts; a helper stopped by SIGSTOP and continued by SIGCONT then missed its
    // deadlines (20 s) in two of two runs. AddressSanitizer runs these tests.
    .enabled(if: Sanitizer.active != "thread", "ThreadSanitizer delays signal handlers"))
struct LifecycleSignalTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func terminationSignalRunsCallbacksInApplesOrderAndSaves(signal: Int32) throws {
        let helper = try LifecycleHelper()
        defer { helper.cleanUp() }
        try helper.addOne(saving: false)
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
        try helper.addOne(saving: false)
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
        try helper.addOne(saving: true)
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
        try helper.addOne(saving: true)
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
    static let url: URL? = BuiltProducts.executable(named: "LifecycleTestHelper")

    let folder = TemporaryDirectory("keepsake-lifecycle")
    private let process: ChildProcess

    init(_ arguments: [String] = []) throws {
        process = try ChildProcess(try #require(Self.url), [folder.url.path] + arguments)
    }

    var pid: pid_t { process.pid }
    var lines: [String] { process.lines }
    func send(_ command: String) { process.send(command) }
    func waitFor(_ line: String, occurrence: Int = 1) throws { try process.waitFor(line, occurrence: occurrence) }
    func waitUntilStopped() throws { try process.waitUntilStopped() }
    func waitForExit() throws -> ChildProcess.Status { try process.waitForExit() }

    /// Waits for the app to be active, then adds the item "one", and saves it when `saving`.
    func addOne(saving: Bool) throws {
        try waitFor("didBecomeActive")
        send("add one")
        if saving {
            send("save")
            try waitFor("saved")
        } else {
            try waitFor("added one")
        }
    }

    /// The names in the helper's saved archive.
    func savedNames() throws -> [String] {
        let archive = folder.file("org.keepsake.lifecycle-helper/Documents/items.archive")
        let data = try Data(contentsOf: archive)
        return try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Note.self, from: data)?.map(\.name) ?? []
    }

    func cleanUp() {
        process.end()
        folder.remove()
    }
}

/// The helper's model, as it archives it.
struct Note: KeyedSecureCoding, Sendable {
    static var supportsSecureCoding: Bool { true }
    var name: String
    func encode(with coder: KeyedEncoder) { coder.encode(name, forKey: "name") }
    init(coder: KeyedDecoder) throws { name = try coder.decode(String.self, forKey: "name") }
    static var archiveClassName: String { "LifecycleTestHelper.Note" }
}
