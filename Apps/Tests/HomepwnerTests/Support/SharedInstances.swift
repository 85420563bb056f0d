import Foundation
import TestSupport

/// Homepwner instances sharing one inventory through the test database, each with a
/// container of its own in one temporary folder. The folder goes with the value: a
/// suite holds one as a stored property; a test that makes one as a local calls
/// ``removeContainers()`` in a `defer`.
struct SharedInstances {
    private let scratch: TemporaryDirectory
    var containers: URL { scratch.url }
    /// The inventory's name in the database, new for each test.
    let name = "test.homepwner.\(UUID().uuidString)"

    init(folder: String) {
        scratch = TemporaryDirectory(folder)
    }

    /// Starts the instance whose container is named `instance`, with `extra` arguments
    /// and `environment`, on the test database or the one `database` names.
    func start(
        _ instance: String, _ extra: [String] = [], database: String? = nil, environment: [String: String] = [:]
    ) throws -> ServerProcess {
        guard let url = database ?? TestDatabase.url else {
            throw ServerProcess.Failure(description: "no test database")
        }
        return try ServerProcess(
            containers: containers,
            arguments: [
                "--port", "0", "--container", containers.appendingPathComponent(instance).path, "--database", url,
                "--shared-name", name,
            ] + extra, environment: environment)
    }

    func removeContainers() { scratch.remove() }
}

/// Waits until `condition` holds, trying every 50 ms, at most `timeout`.
func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw ServerProcess.Failure(description: "timed out: \(what)") }
        try await Task.sleep(for: .milliseconds(50))
    }
}
