import Foundation
import Locking
import PropertyList
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `keepsake defaults` against links leading out of the container, a FIFO, and many
/// concurrent writers.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"), .timeLimit(.minutes(2)))
final class DefaultsAttackCommandTests {
    let folder = TemporaryDirectory("keepsake-defaults-attack")
    let app = "com.example.Homepwner"
    var containers: URL { folder.file("containers") }
    var preferences: URL { containers.appendingPathComponent("\(app)/Library/Preferences") }
    var outside: URL { folder.file("outside.plist") }
    let secret: Data

    init() throws {
        secret = Data(try PropertyListWriter.binary.write(.dictionary(["secret": "outside-value"])))
        try secret.write(to: outside)
    }

    func run(_ arguments: [String]) throws -> CLIRunner.Result {
        try CLIRunner.run(["defaults"] + arguments + ["--containers", containers.path])
    }

    @Test func linkedPreferencesFileIsNeitherReadNorWritten() throws {
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: preferences.appendingPathComponent("\(app).plist").path, withDestinationPath: outside.path)

        let read = try run(["read", app])
        #expect(read.status != 0)
        #expect(!read.stdout.contains("outside-value"), "the outside file was printed")
        #expect(read.stderr.contains("outsideContainer"), "\(read.stderr)")

        let write = try run(["write", app, "secret", "overwritten"])
        #expect(write.status != 0)
        #expect(write.stderr.contains("outsideContainer"), "\(write.stderr)")
        #expect(try Data(contentsOf: outside) == secret, "the outside file was overwritten")
    }

    @Test func linkedLibraryGetsNothingCreatedOutside() throws {
        let elsewhere = folder.file("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: containers.appendingPathComponent(app), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: containers.appendingPathComponent("\(app)/Library"), withDestinationURL: elsewhere)

        let write = try run(["write", app, "k", "v"])
        #expect(write.status != 0)
        #expect(write.stderr.contains("outsideContainer"), "\(write.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == [], "created outside")
    }

    @Test func fifoIsRefusedInBoundedTime() throws {
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        #expect(mkfifo(preferences.appendingPathComponent("\(app).plist").path, 0o644) == 0)
        let clock = ContinuousClock()
        let started = clock.now
        let read = try run(["read", app])
        #expect(read.status != 0)
        #expect(read.stderr.contains("notRegularFile"), "\(read.stderr)")
        #expect(started.duration(to: clock.now) < .seconds(10))
    }

    @Test(
        "defaults write while another process holds the domain's lock fails in bounded time, then succeeds once it is free",
        .enabled(if: BuiltProducts.executable(named: "DefaultsTestHelper") != nil, "DefaultsTestHelper is not built"))
    func heldLockTimesOut() throws {
        let holder = try ChildProcess(
            try #require(BuiltProducts.executable(named: "DefaultsTestHelper")), ["hold-lock", containers.path, app])
        defer { holder.end() }
        try holder.waitFor("locked")

        let clock = ContinuousClock()
        let started = clock.now
        let blocked = try run(["write", app, "k", "v", "--lock-timeout", "2"])
        let waited = started.duration(to: clock.now)
        #expect(blocked.status == 1)
        #expect(blocked.stderr.contains("timedOut"), "\(blocked.stderr)")
        #expect(waited >= .seconds(2), "gave up after \(waited), before its --lock-timeout")
        #expect(waited < .seconds(20), "waited \(waited) for a held lock")
        #expect(!FileManager.default.fileExists(atPath: preferences.appendingPathComponent("\(app).plist").path))

        holder.end()
        #expect(try run(["write", app, "k", "v"]).status == 0)
        #expect(try run(["read", app, "k"]).stdout == "v\n")
    }

    /// Runs `threads` threads at once, thread `t` running `keepsake` with each argument
    /// list `arguments(t)` gives, in order, and `environment(t)`; what failed.
    static func runConcurrently(
        threads: Int, environment: @escaping @Sendable (Int) -> [String: String] = { _ in [:] },
        _ arguments: @escaping @Sendable (Int) -> [[String]]
    ) -> [String] {
        let failures = Locked<[String]>([])
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                for command in arguments(thread) {
                    do {
                        let result = try CLIRunner.run(command, environment: environment(thread))
                        if result.status != 0 { failures.withLock { $0.append(result.stderr) } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        done.wait()
        return failures.withLock { $0 }
    }

    @Test("Two writers with different TMPDIRs, 200 keepsake defaults write each: all 400 keys are saved")
    func writersWithDifferentTemporaryDirectoriesLoseNothing() throws {
        // Under ThreadSanitizer a process takes several times as long to start, and 400
        // of them pass the time limit; 50 each still interleave the two writers.
        let perWriter = Sanitizer.active == nil ? 200 : 50
        let (app, containers, folder) = (app, containers.path, folder)
        // Each writer sees its own TMPDIR, as under systemd's PrivateTmp or in two
        // containers sharing a volume: the lock must not live there.
        for writer in 0..<2 {
            try FileManager.default.createDirectory(
                at: folder.file("tmp-\(writer)"), withIntermediateDirectories: true)
        }
        let failures = Self.runConcurrently(
            threads: 2, environment: { ["TMPDIR": folder.file("tmp-\($0)").path] }
        ) { writer in
            (0..<perWriter).map { index in
                ["defaults", "write", app, "w\(writer)-\(index)", "-int", String(index), "--containers", containers]
            }
        }
        #expect(failures == [])
        let file = try PropertyListReader().read(
            try Data(contentsOf: preferences.appendingPathComponent("\(app).plist")))
        let keys = Set(file.dictionaryValue?.keys ?? [])
        #expect(keys.count == 2 * perWriter, "lost \(2 * perWriter - keys.count) of \(2 * perWriter) keys")
    }

    @Test func concurrentArrayAddsKeepEveryElement() throws {
        let total = 100
        let threads = 25
        let (app, containers) = (app, containers.path)
        let failures = Self.runConcurrently(threads: threads) { thread in
            stride(from: thread, to: total, by: threads).map { index in
                ["defaults", "write", app, "list", "-array-add", "-int", String(index), "--containers", containers]
            }
        }
        #expect(failures == [])
        let file = try PropertyListReader().read(
            try Data(contentsOf: preferences.appendingPathComponent("\(app).plist")))
        let list = try #require(file["list"]?.arrayValue)
        #expect(list.count == total, "lost \(total - list.count) of \(total) elements")
        #expect(Set(list.compactMap(\.int64Value)) == Set((0..<Int64(total))))
    }
}
