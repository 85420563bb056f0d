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
            let shared = SharedInstances(folder: "homepwner-tenant")
            defer { shared.removeContainers() }
            let database = try CloudDatabase(url: admin)
            let client = Task { try await database.run() }
            defer { client.cancel() }
            let grant = try await CloudTenants(database: database).grant(store: shared.name)
            let password = try #require(grant.password)
            let url = try #require(grant.url(replacingUserOf: admin))
            let (first, second) = try (shared.start("first", database: url), shared.start("second", database: url))

            let created = try await HTTP.postForm(
                first.baseURL.appendingPathComponent("items"), [("name", "Bike"), ("valueInDollars", "300")])
            #expect(created.status == 303)
            let setting = try await HTTP.postForm(
                first.baseURL.appendingPathComponent("settings"), [("sortOrder", "name"), ("currencyFormat", "cents")])
            #expect(setting.status == 303)
            try await waitUntil("the item and the setting reach the second instance") {
                let names = try await HTTP.items(second.baseURL).map(\.name)
                let format = try await HTTP.currencyFormat(second.baseURL)
                return names == ["Bike"] && format == "cents"
            }
            #expect(try first.terminate() == 0)
            #expect(try second.terminate() == 0)
            for log in [first.log, second.log] {
                #expect(!log.contains(password), "\(log)")
                #expect(log.contains(":***@"), "the start line names the database, without its password")
            }
        }
    }
}
#endif
