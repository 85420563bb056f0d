import AppDefaults
@_spi(Testing) import AppRuntime
import AppSandbox
import Foundation
import Locking
import PropertyList
import Testing

/// Saving without synchronize(): bounded delay, coalescing, flush, merging, corrupt files.
@Suite("Persistence")
struct PersistenceTests {
    let fixture: TestContainers
    let fileURL: URL

    init() throws {
        fixture = TestContainers()
        fileURL = try fixture.preferences().appendingPathComponent("com.example.Homepwner.plist")
    }

    @Test("A change is saved once the write delay passes, not before, and changes within it are saved together")
    func boundedDelayAndCoalescing() throws {
        let defaults = try fixture.defaults()
        defaults.set(1, forKey: "a")
        fixture.scheduler.advance(by: .milliseconds(60))
        defaults.set(2, forKey: "b")
        #expect(fixture.scheduler.pendingCount == 1, "changes within the delay must share one save")
        #expect(try fixture.file("com.example.Homepwner") == nil, "saved before the delay passed")
        fixture.scheduler.advance(by: .milliseconds(40))
        #expect(
            try fixture.file("com.example.Homepwner") == ["a": 1, "b": 2],
            "not saved within the delay of the first change")
        #expect(fixture.scheduler.pendingCount == 0)

        defaults.set(3, forKey: "a")
        #expect(fixture.scheduler.pendingCount == 1, "a change after a save must schedule a new one")
        fixture.scheduler.advance(by: .milliseconds(100))
        #expect(try fixture.file("com.example.Homepwner") == ["a": 3, "b": 2])
    }

    @Test(
        "flush, synchronize and the lifecycle hooks save at once",
        arguments: ["flush", "synchronize", "background", "terminate"])
    func immediateSaves(hook: String) throws {
        let defaults = try fixture.defaults()
        defaults.set("now", forKey: "when")
        switch hook {
        case "flush": try defaults.flush()
        case "synchronize": #expect(defaults.synchronize())
        case "background": defaults.applicationDidEnterBackground()
        default: defaults.applicationWillTerminate()
        }
        #expect(try fixture.file("com.example.Homepwner") == ["when": "now"])
    }

    @Test("The file is a binary plist at Library/Preferences/<domain>.plist, and a fresh Defaults reads it")
    func fileFormatAndReload() throws {
        let defaults = try fixture.defaults()
        defaults.set("Spork", forKey: "name")
        try defaults.flush()
        let bytes = try Data(contentsOf: fileURL)
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let again = try fixture.defaults()
        #expect(again.string(forKey: "name") == "Spork")
        #expect(try fixture.preferences().lastPathComponent == "Preferences")
        #expect(try fixture.preferences().deletingLastPathComponent().lastPathComponent == "Library")
    }

    @Test("A suite lives in its own file; the global domain in .GlobalPreferences.plist")
    func suiteAndGlobalFiles() throws {
        let suite = try fixture.suite("group.com.example.shared")
        suite.set(1, forKey: "fromSuite")
        try suite.setPersistentValues(["AppleLanguages": ["en"]], forName: Defaults.globalDomain)
        try suite.flush()
        #expect(try fixture.file("group.com.example.shared") == ["fromSuite": 1])
        #expect(try fixture.file(".GlobalPreferences") == ["AppleLanguages": ["en"]])
        #expect(try fixture.file("com.example.Homepwner") == nil, "a suite's change must not touch the app's file")
    }

    @Test("Two Defaults on one domain changing different keys lose neither; the same key goes to the last writer")
    func mergeOnWrite() throws {
        let one = try fixture.suite("group.shared")
        let two = try fixture.suite("group.shared")
        one.set("one", forKey: "a")
        one.set("one", forKey: "same")
        two.set("two", forKey: "b")
        two.set("two", forKey: "same")
        try one.flush()
        try two.flush()
        #expect(try fixture.file("group.shared") == ["a": "one", "b": "two", "same": "two"])
        #expect(two.string(forKey: "a") == "one", "a save must bring in the keys others saved")
        one.removeObject(forKey: "b")
        try one.flush()
        #expect(
            try fixture.file("group.shared") == ["a": "one", "same": "two"], "a removal is a change like any other")
        two.set("again", forKey: "c")
        try two.flush()
        #expect(
            try fixture.file("group.shared") == ["a": "one", "same": "two", "c": "again"],
            "a removed key must not come back")
    }

    @Test("setPersistentDomain replaces the domain as a whole, also keys others saved")
    func replacingADomain() throws {
        let one = try fixture.defaults()
        let two = try fixture.defaults()
        one.set(1, forKey: "old")
        try one.flush()
        try two.setPersistentDomain(["new": 2], forName: "com.example.Homepwner")
        try two.flush()
        #expect(try fixture.file("com.example.Homepwner") == ["new": 2])
        #expect(two.persistentDomain(forName: "com.example.Homepwner")?["new"] as? Int == 2)
        two.removePersistentDomain(forName: "com.example.Homepwner")
        try two.flush()
        #expect(try fixture.file("com.example.Homepwner") == .dictionary([:]))
        #expect(two.persistentDomain(forName: "com.example.Homepwner") == nil)
    }

    @Test(
        "A corrupt file is reported, moved aside with a timestamp, never overwritten, and fresh defaults work",
        arguments: [
            ("truncated binary", Array("bplist00".utf8) + [0xD1, 0x01]),
            ("not a plist", Array("hello, world".utf8)),
            ("empty, as Foundation's O_TRUNC rewrite leaves it", []),
            ("a plist that is not a dictionary", Array("<plist><array/></plist>".utf8)),
        ] as [(String, [UInt8])]
    )
    func corruptFile(kind: String, bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: fileURL)

        let defaults = try fixture.defaults()
        let error = try #require(defaults.reportedErrors.first, "the corruption must be reported")
        #expect(error.code == .corruptFile)
        #expect(error.domain == "com.example.Homepwner")
        #expect(fixture.log.all.map(\.code) == [.corruptFile], "the error handler must hear of it")
        let aside = try #require(error.movedTo.map(URL.init(fileURLWithPath:)))
        #expect(
            aside.lastPathComponent.hasPrefix("com.example.Homepwner.plist.corrupt-20"), "\(aside.lastPathComponent)")
        #expect(try Data(contentsOf: aside) == Data(bytes), "the corrupt bytes must be kept as they were")
        #expect(!FileManager.default.fileExists(atPath: fileURL.path))

        defaults.set("fresh", forKey: "k")
        try defaults.flush()
        #expect(try fixture.file("com.example.Homepwner") == ["k": "fresh"])
        #expect(try Data(contentsOf: aside) == Data(bytes))
    }

    @Test("A file corrupted after loading is moved aside at the next save; the last good values are kept")
    func corruptionFoundWhileSaving() throws {
        let defaults = try fixture.defaults()
        defaults.set("kept", forKey: "old")
        try defaults.flush()
        try Data("garbage".utf8).write(to: fileURL)
        defaults.set("new", forKey: "new")
        try defaults.flush()
        #expect(try fixture.file("com.example.Homepwner") == ["old": "kept", "new": "new"])
        let error = try #require(defaults.reportedErrors.first)
        #expect(error.code == .corruptFile)
        #expect(try Data(contentsOf: URL(fileURLWithPath: try #require(error.movedTo))) == Data("garbage".utf8))
    }

    @Test("A save that fails keeps the changes and saves them next time")
    func failedSaveIsRetried() throws {
        let defaults = try fixture.defaults()
        defaults.set("v", forKey: "k")
        // A directory where the file should be makes the rename fail.
        try FileManager.default.createDirectory(at: fileURL, withIntermediateDirectories: true)
        let error = #expect(throws: DefaultsError.self) { try defaults.flush() }
        #expect(error?.code == .fileSystem)
        #expect(error?.underlyingError is SandboxError)
        #expect(!defaults.synchronize(), "synchronize reports the failure")
        try FileManager.default.removeItem(at: fileURL)
        try defaults.flush()
        #expect(try fixture.file("com.example.Homepwner") == ["k": "v"])
    }

    @Test("A released Defaults saves what it has not saved yet")
    func releaseSaves() throws {
        do {
            let defaults = try fixture.defaults()
            defaults.set(true, forKey: "released")
        }
        #expect(try fixture.file("com.example.Homepwner") == ["released": true])
    }

    @Test("Threads setting, reading and saving at once lose nothing", .timeLimit(.minutes(1)))
    func concurrentUse() async throws {
        let defaults = try fixture.defaults()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        defaults.set(round, forKey: "w\(worker)-\(round)")
                        _ = defaults.integer(forKey: "w\((worker + 1) % 8)-\(round)")
                        if round % 50 == 0 { try? defaults.flush() }
                    }
                }
            }
        }
        try defaults.flush()
        let file = try #require(try fixture.file("com.example.Homepwner")?.dictionaryValue)
        #expect(file.count == 8 * 200)
        #expect(
            (0..<8).allSatisfy { worker in (0..<200).allSatisfy { file["w\(worker)-\($0)"] == .integer(Int64($0)) } })
    }

    /// Live system calls whose writes and fsyncs fail with `errno` while `failing` is set.
    final class Faults: Sendable {
        let failing = Locked<Int32?>(nil)

        var systemCalls: SystemCalls {
            var calls = SystemCalls.live
            calls.write = { fd, buffer throws(Errno) in
                if let errno = self.failing.withLock({ $0 }), errno != EIO { throw Errno(errno) }
                return try SystemCalls.live.write(fd, buffer)
            }
            calls.fsync = { fd throws(Errno) in
                if self.failing.withLock({ $0 }) == EIO { throw Errno(EIO) }
                try SystemCalls.live.fsync(fd)
            }
            return calls
        }
    }

    @Test(
        "A save failing with ENOSPC or EIO keeps the previous file byte for byte and the changes for the next save",
        arguments: [ENOSPC, EIO])
    func injectedFaults(errno: Int32) throws {
        let faults = Faults()
        var configuration = fixture.configuration()
        configuration.fileSystem = FileSystem(system: faults.systemCalls)
        let defaults = try fixture.make(configuration)
        defaults.set("first", forKey: "a")
        try defaults.flush()
        let before = try Data(contentsOf: fileURL)

        faults.failing.withLock { $0 = errno }
        defaults.set("second", forKey: "b")
        let error = #expect(throws: DefaultsError.self) { try defaults.flush() }
        #expect(error?.code == .fileSystem)
        #expect((error?.underlyingError as? SandboxError)?.code == (errno == ENOSPC ? .noSpace : .ioError))
        #expect(try Data(contentsOf: fileURL) == before, "a failed save must leave the previous file as it was")

        faults.failing.withLock { $0 = nil }
        try defaults.flush()
        #expect(try fixture.file("com.example.Homepwner") == ["a": "first", "b": "second"])
    }

    @Test("A scheduled save that fails is reported and retried with a growing wait until it works")
    func backgroundSaveRetries() throws {
        let faults = Faults()
        var configuration = fixture.configuration()
        configuration.fileSystem = FileSystem(system: faults.systemCalls)
        let defaults = try fixture.make(configuration)
        faults.failing.withLock { $0 = ENOSPC }
        defaults.set("kept", forKey: "k")
        fixture.scheduler.advance(by: .milliseconds(100))
        #expect(fixture.log.all.map(\.code) == [.fileSystem], "the failed save must be reported")
        #expect(fixture.scheduler.pendingCount == 1, "a retry must be scheduled")
        fixture.scheduler.advance(by: .seconds(1))
        #expect(fixture.log.all.count == 2, "the first retry comes a second later")
        fixture.scheduler.advance(by: .milliseconds(1_999))
        #expect(fixture.log.all.count == 2, "the second retry waits two seconds")
        faults.failing.withLock { $0 = nil }
        fixture.scheduler.advance(by: .milliseconds(1))
        #expect(try fixture.file("com.example.Homepwner") == ["k": "kept"])
        #expect(fixture.scheduler.pendingCount == 0, "no retry after a save that worked")
    }

    @Test("A file another process corrupts is noticed by the check, moved aside, and the last good values saved again")
    func corruptionFoundByTheCheck() throws {
        let defaults = try fixture.defaults()
        defaults.set("kept", forKey: "old")
        try defaults.flush()
        try Data("garbage".utf8).write(to: fileURL)
        defaults.checkForExternalChanges()
        let error = try #require(defaults.reportedErrors.first)
        #expect(error.code == .corruptFile)
        #expect(try Data(contentsOf: URL(fileURLWithPath: try #require(error.movedTo))) == Data("garbage".utf8))
        #expect(defaults.string(forKey: "old") == "kept", "the view must keep the last good values")
        defaults.set("new", forKey: "new")
        try defaults.flush()
        #expect(try fixture.file("com.example.Homepwner") == ["old": "kept", "new": "new"])
    }
}
