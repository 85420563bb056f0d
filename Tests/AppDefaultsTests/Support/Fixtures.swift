import AppDefaults
import AppSandbox
import Foundation
import TestSupport
import PropertyList

/// A scheduler driven by the test: work runs only when ``advance(by:)`` passes its
/// deadline, so no test sleeps to see a deferred save.
final class ManualScheduler: DefaultsScheduler, @unchecked Sendable {
    // @unchecked: every property is guarded by `lock`.
    private let lock = NSLock()
    private var now: Duration = .zero
    private var queue: [(deadline: Duration, order: Int, work: @Sendable () -> Void)] = []
    private var order = 0

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        lock.lock()
        queue.append((now + delay, order, work))
        order += 1
        lock.unlock()
    }

    /// Work waiting, due or not.
    var pendingCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return queue.count
    }

    /// Moves time forward, running everything that falls due (in deadline order),
    /// including work scheduled by that work.
    func advance(by interval: Duration) {
        lock.lock()
        let target = now + interval
        lock.unlock()
        while true {
            lock.lock()
            guard let next = queue.enumerated().filter({ $0.element.deadline <= target })
                .min(by: { ($0.element.deadline, $0.element.order) < ($1.element.deadline, $1.element.order) })
            else {
                now = target
                lock.unlock()
                return
            }
            queue.remove(at: next.offset)
            now = max(now, next.element.deadline)
            lock.unlock()
            next.element.work()
        }
    }
}

/// Collects reported errors instead of printing them.
final class ErrorLog: @unchecked Sendable {
    // @unchecked: `errors` is guarded by `lock`.
    private let lock = NSLock()
    private var errors: [DefaultsError] = []

    func record(_ error: DefaultsError) {
        lock.lock()
        errors.append(error)
        lock.unlock()
    }

    var all: [DefaultsError] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }
}

/// The Defaults a test made, so that they can be saved before its folder is removed
/// (a Defaults saves what is left when it is released, which would make the folder again).
final class DefaultsRegistry: @unchecked Sendable {
    // @unchecked: `all` is guarded by `lock`.
    private final class Weak { weak var value: Defaults?; init(_ value: Defaults) { self.value = value } }
    private let lock = NSLock()
    private var all: [Weak] = []

    func add(_ defaults: Defaults) -> Defaults {
        lock.withLock { all.append(Weak(defaults)) }
        return defaults
    }

    func flushAll() {
        for defaults in lock.withLock({ all.compactMap(\.value) }) { try? defaults.flush() }
    }
}

/// A folder of containers made for one test, removed at the end.
struct TestContainers {
    let url: URL
    let scheduler = ManualScheduler()
    let log = ErrorLog()
    let made = DefaultsRegistry()

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("keepsake-defaults-\(UInt64.random(in: .min ... .max))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func container(_ identifier: String = "com.example.Homepwner") throws -> AppContainer {
        try AppContainer(identifier: identifier, containersDirectory: url)
    }

    func preferences(_ identifier: String = "com.example.Homepwner") throws -> URL {
        try container(identifier).preferencesDirectory
    }

    /// A configuration with the manual scheduler, no command line and a quiet error log.
    func configuration(arguments: [String] = [], watch: Bool = false) -> Defaults.Configuration {
        var configuration = Defaults.Configuration()
        configuration.arguments = arguments
        configuration.scheduler = scheduler
        configuration.writeDelay = .milliseconds(100)
        configuration.externalChangeInterval = watch ? .milliseconds(500) : nil
        configuration.watchesFiles = false
        configuration.errorHandler = { [log] in log.record($0) }
        return configuration
    }

    func defaults(_ identifier: String = "com.example.Homepwner", arguments: [String] = []) throws -> Defaults {
        try make(configuration(arguments: arguments), in: identifier)
    }

    /// A Defaults of the app `identifier` with `configuration`, saved before ``remove()``.
    func make(_ configuration: Defaults.Configuration, in identifier: String = "com.example.Homepwner") throws -> Defaults {
        made.add(Defaults(container: try container(identifier), configuration: configuration))
    }

    func suite(
        _ name: String, in identifier: String = "com.example.Homepwner", configuration: Defaults.Configuration? = nil
    ) throws -> Defaults {
        made.add(try Defaults(suiteName: name, container: try container(identifier), configuration: configuration ?? self.configuration()))
    }

    /// What the preferences file of `domain` holds, read with our reader.
    func file(_ domain: String, in identifier: String = "com.example.Homepwner") throws -> PropertyListValue? {
        let url = try preferences(identifier).appendingPathComponent("\(domain).plist")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try PropertyListReader().read(try Data(contentsOf: url))
    }

    /// Saves what the test's Defaults have not saved, then removes the folder.
    func remove() {
        made.flushAll()
        try? FileManager.default.removeItem(at: url)
    }
}

/// The built `DefaultsTestHelper` executable next to the test bundle, if it was built.
enum Helper {
    static let url: URL? = BuiltProducts.executable(named: "DefaultsTestHelper")

    /// Runs the helper to completion; its exit status, standard output and error.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = try start(arguments)
        let output = process.output.fileHandleForReading.readDataToEndOfFile()
        let errors = process.errors.fileHandleForReading.readDataToEndOfFile()
        process.process.waitUntilExit()
        return (process.process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    static func start(_ arguments: [String]) throws -> (process: Process, output: Pipe, errors: Pipe) {
        guard let url else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    /// Reads `pipe` until `count` lines have arrived or it ends; the lines.
    static func lines(_ pipe: Pipe, count: Int) -> [String] {
        var data = Data()
        while data.filter({ $0 == 0x0A }).count < count {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// Waits at most `timeout` for `condition`, checking every few milliseconds; for
/// events another thread or process causes.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}
