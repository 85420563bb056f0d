import Foundation
import TestSupport
import Testing

extension OnTheTestDatabase {
    /// The database password given to Homepwner never reaches its output.
    @Suite(
        .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"),
        .enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage))
    struct DatabaseSecretTests {
        @Test("Homepwner started with a password in its database URL prints the URL with *** in its place")
        func passwordIsNotPrinted() throws {
            let scratch = TemporaryDirectory("homepwner-secret")
            defer { scratch.remove() }
            let containers = scratch.url
            // The test server trusts local connections, so any password is accepted.
            let plain = try #require(TestDatabase.url)
            let withPassword = plain.replacingOccurrences(of: "@", with: ":hunter2-not-shown@", options: [], range: nil)
            let server = try ServerProcess(
                containers: containers,
                arguments: [
                    "--port", "0", "--container", containers.path, "--database", withPassword, "--shared-name",
                    "test.homepwner.\(UUID().uuidString)",
                ])
            #expect(try server.terminate() == 0, "\(server.log)")
            #expect(!server.log.contains("hunter2-not-shown"), "\(server.log)")
            #expect(server.log.contains(":***@"), "the start line names the database, without its password")
        }
    }
}
