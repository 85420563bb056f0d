import AppDefaults
@_spi(Testing) import AppRuntime
import AppSandbox
import Foundation
import Locking
import PropertyList
import TestSupport

/// Collects reported errors instead of printing them.
final class ErrorLog: Sendable {
    private let errors = Locked<[DefaultsError]>([])

    func record(_ error: DefaultsError) { errors.withLock { $0.append(error) } }

    var all: [DefaultsError] { errors.withLock { $0 } }
}

/// The Defaults a test made, so that they can be saved before its folder is removed
/// (a Defaults saves what is left when it is released, which would make the folder again).
final class DefaultsRegistry: Sendable {
    private struct Weak { weak var value: Defaults? }
    private let all = Locked<[Weak]>([])

    func add(_ defaults: Defaults) -> Defaults {
        all.withLock { $0.append(Weak(value: defaults)) }
        return defaults
    }

    func flushAll() {
        for defaults in all.withLock({ $0.compactMap(\.value) }) { try? defaults.flush() }
    }
}

/// A folder of containers made for one test, removed with the value: a suite holds one
/// as a stored property (Swift Testing makes a suite instance per test). A test that makes
/// one as a local calls ``remove()`` in a `defer`, since a local may be released after its
/// last use rather than at the end of its scope.
final class TestContainers: Sendable {
    let folder = TemporaryDirectory("keepsake-defaults")
    let scheduler = ManualScheduler()
    let log = ErrorLog()
    let made = DefaultsRegistry()

    var url: URL { folder.url }

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
    func make(_ configuration: Defaults.Configuration, in identifier: String = "com.example.Homepwner") throws
        -> Defaults
    {
        made.add(Defaults(container: try container(identifier), configuration: configuration))
    }

    func suite(
        _ name: String, in identifier: String = "com.example.Homepwner", configuration: Defaults.Configuration? = nil
    ) throws -> Defaults {
        made.add(
            try Defaults(
                suiteName: name, container: try container(identifier),
                configuration: configuration ?? self.configuration()))
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
        folder.remove()
    }

    deinit {
        remove()
    }
}

/// The built `DefaultsTestHelper` executable next to the test bundle, if it was built.
enum Helper {
    static let url: URL? = BuiltProducts.executable(named: "DefaultsTestHelper")

    /// Runs the helper to completion; its exit status, standard output and error.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, output: String, errors: String
    ) {
        guard let url else { throw CocoaError(.fileNoSuchFile) }
        let result = try ChildProcess.run(url, arguments, environment: environment)
        return (result.exitCode, result.outputText, result.errorText)
    }

    /// Starts the helper; `environment` entries replace the inherited ones of that name.
    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        guard let url else { throw CocoaError(.fileNoSuchFile) }
        return try ChildProcess(url, arguments, environment: environment)
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
