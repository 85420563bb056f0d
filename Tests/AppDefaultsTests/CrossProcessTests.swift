import AppDefaults
import AppRuntime
import AppSandbox
import Foundation
import Locking
import PropertyList
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Real processes (DefaultsTestHelper): saving without synchronize(), kill -9, and two
/// processes hammering one suite.
@Suite(
    "Cross-process",
    .enabled(if: Helper.url != nil, "DefaultsTestHelper is not built next to the tests"),
    .timeLimit(.minutes(3))
)
struct CrossProcessTests {
    let app = "com.example.Homepwner"

    @Test("A value set in one process is read by a fresh process, with no synchronize() anywhere")
    func freshProcessReadsWithoutSynchronize() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        // The writer's delay is a minute and it exits at once: only the exit-time save can keep it.
        let set = try Helper.run(["set", fixture.url.path, app, "greeting", "hello"])
        #expect(set.status == 0, "\(set.errors)")
        let read = try Helper.run(["read", fixture.url.path, app, "greeting"])
        #expect(read.output == "hello\n")
    }

    @Test("Defaults.standard lives in the app's own container: KEEPSAKE_APP_ID, else the executable's name")
    func standardDefaultsUseTheMainContainer() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let containers = fixture.url.standardizedFileURL.path
        let named = ["KEEPSAKE_CONTAINERS": containers, "KEEPSAKE_APP_ID": "com.example.Standard"]
        // The helper exits right after setting: only the exit-time save can keep it.
        let set = try Helper.run(["standard-set", "greeting", "hello"], environment: named)
        #expect(set.status == 0, "\(set.errors)")
        #expect(set.output == "com.example.Standard \(containers)/com.example.Standard\n")
        #expect(try Helper.run(["standard-read", "greeting"], environment: named).output == "hello\n")
        #expect(
            FileManager.default.fileExists(
                atPath: "\(containers)/com.example.Standard/Library/Preferences/com.example.Standard.plist"))

        let unnamed = ["KEEPSAKE_CONTAINERS": containers, "KEEPSAKE_APP_ID": ""]
        let byName = try Helper.run(["standard-set", "greeting", "bonjour"], environment: unnamed)
        #expect(byName.output == "DefaultsTestHelper \(containers)/DefaultsTestHelper\n", "\(byName.errors)")
        #expect(try Helper.run(["standard-read", "greeting"], environment: unnamed).output == "bonjour\n")
        #expect(
            try Helper.run(["standard-read", "greeting"], environment: named).output == "hello\n",
            "two identities, two containers")
    }

    @Test("kill -9 after the write delay loses nothing")
    func killAfterDelayLosesNothing() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        for round in 0..<3 {
            let child = try Helper.start([
                "set-and-hang", fixture.url.path, app, "round-\(round)", "value-\(round)", "50",
            ])
            defer { child.end() }
            try child.waitFor("set")
            // The save the write delay (50 ms) schedules, seen in the file, which is
            // written after the journal's fsync; the bound is room for a busy machine.
            let deadline = ContinuousClock.now + .seconds(5)
            while try fixture.file(app)?["round-\(round)"] != .string("value-\(round)") {
                try #require(ContinuousClock.now < deadline, "round \(round) was not saved within 5 s")
                usleep(10_000)
            }
            child.signal(SIGKILL)
            #expect(try child.waitForExit() == .signalled(SIGKILL))
        }
        let read = try fixture.defaults()
        for round in 0..<3 {
            #expect(read.string(forKey: "round-\(round)") == "value-\(round)", "round \(round) was lost")
        }
    }

    @Test("kill -9 during a save leaves the previous file readable, never older than reported")
    func killDuringWriteKeepsAReadableFile() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        var lastSaved = 0
        for iteration in 0..<20 {
            let child = try Helper.start(["crash-writer", fixture.url.path, app])
            defer { child.end() }
            let saves = Int.random(in: 1...4)
            try child.poll("\(saves) reported saves") { child.lines.count >= saves }
            child.signal(SIGKILL)
            #expect(try child.waitForExit() == .signalled(SIGKILL), "iteration \(iteration)")
            // Every save it reported, including any between the poll and the kill.
            let reported = child.lines.last.flatMap { Int($0.split(separator: " ").last ?? "") } ?? lastSaved

            let file = try #require(try fixture.file(app), "iteration \(iteration): no file")
            let counter = try #require(file["counter"]?.int64Value, "iteration \(iteration): no counter in \(file)")
            #expect(counter >= reported, "iteration \(iteration): \(counter) older than the reported \(reported)")
            #expect(counter <= reported + 1, "iteration \(iteration): \(counter) was never saved")
            #expect(
                file["payload"]?.dataValue?.first == UInt8(truncatingIfNeeded: counter),
                "iteration \(iteration): keys from different saves")
            lastSaved = Int(counter)
        }
        let corrupt = try FileManager.default.contentsOfDirectory(atPath: try fixture.preferences().path).filter {
            $0.contains("corrupt")
        }
        #expect(corrupt.isEmpty, "a kill must never leave a file that reads as corrupt: \(corrupt)")
    }

    @Test("Two processes hammering one suite lose no key; the shared key holds one process's last write")
    func twoProcessesHammerOneSuite() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let rounds = 150
        let group = "group.com.example.shared"
        let children = try ["left", "right"].map { name in
            try Helper.start(["hammer", fixture.url.path, group, "group.com.example.shared", name, String(rounds)])
        }
        for child in children {
            #expect(try child.waitForExit(within: .seconds(120)) == .exited(0), "\(child.errors)")
            #expect(child.output == "done\n")
            #expect(child.errors.isEmpty, "\(child.errors)")
        }
        let file = try #require(try fixture.file(group, in: group)?.dictionaryValue)
        for name in ["left", "right"] {
            let missing = (0..<rounds).filter { file["\(name)-\($0)"] != .integer(Int64($0)) }
            #expect(missing.isEmpty, "\(name) lost \(missing.count) keys: \(missing.prefix(10))")
        }
        #expect(file.count == 2 * rounds + 1)
        let shared = try #require(file["shared"]?.stringValue)
        #expect(
            ["left-\(rounds - 1)", "right-\(rounds - 1)"].contains(shared),
            "shared is \(shared), no process's last write")
    }

    @Test("Two processes with different TMPDIRs, 200 keys each: all 400 keys are saved")
    func differentTemporaryDirectoriesShareTheLock() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let count = 200
        // Each writer sees its own temporary folder (systemd PrivateTmp, containers
        // sharing a volume): the lock must not live there.
        let children = try ["left", "right"].map { name in
            let tmp = fixture.url.appendingPathComponent("tmp-\(name)")
            try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
            return try Helper.start(
                ["keys", fixture.url.path, app, name, String(count)], environment: ["TMPDIR": tmp.path])
        }
        for child in children {
            #expect(try child.waitForExit(within: .seconds(120)) == .exited(0), "\(child.errors)")
            #expect(child.output == "done\n")
        }
        let file = try #require(try fixture.file(app)?.dictionaryValue)
        for name in ["left", "right"] {
            let missing = (0..<count).filter { file["\(name)-\($0)"] != .integer(Int64($0)) }
            #expect(missing.isEmpty, "\(name) lost \(missing.count) keys: \(missing.prefix(10))")
        }
        #expect(file.count == 2 * count)
    }

    @Test("A save while another process holds the domain's lock ends in timedOut, naming the lock, in time")
    func lockHeldByAnotherProcessTimesOut() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let holder = try Helper.start(["hold-lock", fixture.url.path, app])
        defer { holder.end() }
        try holder.waitFor("locked")
        var configuration = fixture.configuration()
        configuration.lockTimeout = .milliseconds(400)
        let defaults = try fixture.make(configuration)
        defaults.set("waiting", forKey: "k")
        let clock = ContinuousClock()
        let started = clock.now
        let error = #expect(throws: DefaultsError.self) { try defaults.flush() }
        let waited = started.duration(to: clock.now)
        #expect(error?.code == .timedOut)
        #expect(
            error?.path?.hasSuffix("Library/Preferences/.keepsake-\(app).plist.lock") == true,
            "\(String(describing: error))")
        #expect(waited >= .milliseconds(400) && waited < .seconds(4), "waited \(waited)")
        #expect(try fixture.file(app) == nil, "nothing may be written without the lock")
        holder.end()
        try defaults.flush()
        #expect(try fixture.file(app) == ["k": "waiting"], "the change is kept and saved once the lock is free")
    }

    @Test(
        "A change another process saves reaches this process's observers, by the file watch or by the periodic check",
        arguments: [true, false]
    )
    func anotherProcessesChangeIsDelivered(watch: Bool) throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        var configuration = fixture.configuration()
        configuration.scheduler = SystemScheduler()
        configuration.watchesFiles = watch
        configuration.externalChangeInterval = watch ? nil : .milliseconds(20)
        let watcher = try fixture.make(configuration)
        let seen = Locked<[DefaultsChange]>([])
        let token = watcher.observe("greeting") { change in seen.withLock { $0.append(change) } }
        defer { token.cancel() }
        let set = try Helper.run(["set", fixture.url.path, app, "greeting", "from afar"])
        #expect(set.status == 0)
        #expect(eventually { seen.withLock { !$0.isEmpty } }, "the file watch never delivered the change")
        #expect(
            seen.withLock { $0 } == [
                DefaultsChange(key: "greeting", oldValue: nil, newValue: "from afar", isExternal: true)
            ])
    }

    #if os(Linux)
    @Test("Releasing a watching Defaults ends its watch and closes its descriptors")
    func watchEndsWithItsDefaults() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let result = try Helper.run(["watches", fixture.url.path, app])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "before 0 during 10 after 0\n", "one inotify descriptor per live Defaults, none after")
    }
    #endif
}
