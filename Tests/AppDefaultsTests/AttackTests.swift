import AppDefaults
import AppSandbox
import Foundation
import Locking
import PropertyList
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Preferences files and locks that try to lead out of the container, block, or be
/// trusted when they should not: each refused with a typed error, nothing outside touched.
@Suite("Defaults under attack", .timeLimit(.minutes(1)))
struct AttackTests {
    let fixture: TestContainers
    let app = "com.example.Homepwner"
    let outside: URL
    let secret: Data

    init() throws {
        fixture = TestContainers()
        outside = fixture.url.appendingPathComponent("outside.plist")
        secret = Data(try PropertyListWriter.binary.write(.dictionary(["secret": "outside"])))
        try secret.write(to: outside)
    }

    var preferences: URL { (try? fixture.preferences(app)) ?? fixture.url }

    func underlying(_ error: DefaultsError?) -> SandboxError.Code? {
        (error?.underlyingError as? SandboxError)?.code
    }

    @Test(
        "A preferences file linked to a plist outside is neither read nor written",
        arguments: ["absolute", "relative"])
    func linkedPreferencesFile(kind: String) throws {
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        let target = kind == "absolute" ? outside.path : "../../../outside.plist"
        try FileManager.default.createSymbolicLink(
            atPath: preferences.appendingPathComponent("\(app).plist").path, withDestinationPath: target)

        let defaults = try fixture.defaults()
        #expect(defaults.string(forKey: "secret") == nil, "the outside file was read")
        #expect(fixture.log.all.map { underlying($0) } == [.outsideContainer], "\(fixture.log.all)")
        defaults.set("overwrite", forKey: "secret")
        let error = #expect(throws: DefaultsError.self) { try defaults.flush() }
        #expect(error?.code == .fileSystem)
        #expect(underlying(error) == .outsideContainer)
        #expect(try Data(contentsOf: outside) == secret, "the outside file was written")
    }

    @Test("A Library linked to a folder outside gets no Preferences folder or file there")
    func linkedLibrary() throws {
        let container = try fixture.container(app)
        let elsewhere = fixture.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: container.url, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: container.url(for: .library), withDestinationURL: elsewhere)

        let defaults = try fixture.defaults()
        defaults.set("value", forKey: "k")
        let error = #expect(throws: DefaultsError.self) { try defaults.flush() }
        #expect(underlying(error) == .outsideContainer)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == [], "created outside")
    }

    @Test("A FIFO at the preferences path is refused in bounded time, never waited on")
    func fifo() throws {
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        let fifo = preferences.appendingPathComponent("\(app).plist").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let clock = ContinuousClock()
        let started = clock.now
        let defaults = try fixture.defaults()
        #expect(fixture.log.all.map { underlying($0) } == [.notRegularFile], "\(fixture.log.all)")
        defaults.set("value", forKey: "k")
        let error = #expect(throws: DefaultsError.self) { try defaults.flush() }
        #expect(underlying(error) == .notRegularFile)
        #expect(started.duration(to: clock.now) < .seconds(5))
        let type = try FileManager.default.attributesOfItem(atPath: fifo)[.type] as? FileAttributeType
        #expect(type != .typeRegular, "the FIFO was replaced")
    }

    @Test("A lock file that is a symbolic link is refused and what it points to left alone")
    func linkedLockFile() throws {
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: preferences.appendingPathComponent(".keepsake-\(app).plist.lock").path,
            withDestinationPath: outside.path)
        let defaults = try fixture.defaults()
        defaults.set("value", forKey: "k")
        let error = #expect(throws: DefaultsError.self) { try defaults.flush() }
        #expect(underlying(error) == .untrustedLock)
        #expect(try Data(contentsOf: outside) == secret)
    }

    @Test("A lock file owned by another user or writable by others is refused", arguments: ["owner", "group", "other"])
    func untrustedLockFile(forgery: String) throws {
        let forged = Locked<Set<Int32>>([])
        var calls = SystemCalls.live
        calls.openat = { directory, path, flags, mode throws(Errno) in
            let fd = try SystemCalls.live.openat(directory, path, flags, mode)
            if path.hasSuffix(".lock") { forged.withLock { _ = $0.insert(fd) } }
            return fd
        }
        calls.close = { fd throws(Errno) in
            forged.withLock { _ = $0.remove(fd) }
            try SystemCalls.live.close(fd)
        }
        // CI runs as root and cannot make a file another user's: the status is forged.
        calls.fstat = { fd throws(Errno) in
            var status = try SystemCalls.live.fstat(fd)
            if forged.withLock({ $0.contains(fd) }) {
                switch forgery {
                case "owner": status.owner = UInt32(geteuid()) &+ 1
                case "group": status.permissions |= 0o020
                default: status.permissions |= 0o002
                }
            }
            return status
        }
        var configuration = fixture.configuration()
        configuration.fileSystem = FileSystem(system: calls)
        let defaults = try fixture.make(configuration)
        defaults.set("value", forKey: "k")
        let error = #expect(throws: DefaultsError.self) { try defaults.flush() }
        #expect(underlying(error) == .untrustedLock, "\(String(describing: error))")
        #expect(try fixture.file(app) == nil, "written without a trusted lock")
    }

    @Test("update changes a key from the value saved now: 4 threads × 25 appends through two Defaults keep all 100")
    func updateIsAtomic() throws {
        let first = try fixture.defaults()
        let second = try fixture.defaults()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let defaults = worker % 2 == 0 ? first : second
            for index in 0..<25 {
                try? defaults.update("list") { current in
                    .array((current?.arrayValue ?? []) + [.integer(Int64(worker * 100 + index))])
                }
            }
        }
        let list = try #require(try fixture.file(app)?["list"]?.arrayValue)
        #expect(list.count == 100, "lost \(100 - list.count) elements")
        #expect(Set(list).count == 100)
    }
}
