#if Database
import Foundation
import KeepsakeCloud
import TestSupport
import Testing

extension OnTheTestDatabase {
    /// Homepwner on the role `keepsake cloud grant` makes for it: no superuser, no
    /// table owner at run time.
    @Suite(
        "Homepwner on its own database role",
        .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"),
        .enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage))
    struct TenantRoleAppTests {
        @Test(
            "Two instances on an app's granted role, which owns no table, share an item and a setting, and never print its password"
        )
        func instancesRunOnTheirGrantedRole() async throws {
            let admin = try #require(TestDatabase.url)
            let name = "com.example.homepwner-\(UUID().uuidString.prefix(8).lowercased())"
            let database = try CloudDatabase(url: admin)
            let client = Task { try await database.run() }
            defer { client.cancel() }
            let grant = try await CloudTenants(database: database).grant(store: name)
            let password = try #require(grant.password)
            let url = try #require(grant.url(replacingUserOf: admin))
            let containers = try temporaryFolder("homepwner-tenant")
            defer { try? FileManager.default.removeItem(at: containers) }
            let (first, second) = try (
                start("first", in: containers, url: url, name: name),
                start("second", in: containers, url: url, name: name)
            )

            let created = try await HTTP.postForm(
                first.baseURL.appendingPathComponent("items"), [("name", "Bike"), ("valueInDollars", "300")])
            #expect(created.status == 303)
            let setting = try await HTTP.postForm(
                first.baseURL.appendingPathComponent("settings"), [("sortOrder", "name"), ("currencyFormat", "cents")])
            #expect(setting.status == 303)
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                let items = try await HTTP.items(second.baseURL).map(\.name)
                let settings = try await HTTP.send("GET", second.baseURL.appendingPathComponent("settings")).body
                let cents = String(decoding: settings, as: UTF8.self).contains(
                    "name=\"currencyFormat\" value=\"cents\" checked")
                if items == ["Bike"] && cents { break }
                try #require(
                    ContinuousClock.now < deadline, "the item and the setting did not reach the second instance")
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try first.terminate() == 0)
            #expect(try second.terminate() == 0)
            for log in [first.log, second.log] {
                #expect(!log.contains(password), "\(log)")
                #expect(log.contains(":***@"), "the start line names the database, without its password")
            }
        }

        func start(_ instance: String, in containers: URL, url: String, name: String) throws -> ServerProcess {
            try ServerProcess(
                containers: containers,
                arguments: [
                    "--port", "0", "--container", containers.appendingPathComponent(instance).path, "--database", url,
                    "--shared-name", name,
                ])
        }
    }
}
#endif
