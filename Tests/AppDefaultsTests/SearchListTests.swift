import AppDefaults
import AppSandbox
import Foundation
import PropertyList
import Testing

/// The search list: argument domain, primary domain, app domain, added suites,
/// global domain, registration domain, in that order.
@Suite("Search list")
struct SearchListTests {
    @Test("Each domain wins over every domain after it, and each shows when those before it lack the key")
    func precedenceAcrossAllDomains() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        // Every domain gets the key "k" holding its own name, and a key only it has.
        let app = try fixture.defaults()
        app.set("app", forKey: "k")
        app.set("app", forKey: "only-app")
        try app.setPersistentValues(["k": "global", "only-global": "global"], forName: Defaults.globalDomain)
        let added = try fixture.suite("group.added")
        added.set("added", forKey: "k")
        added.set("added", forKey: "only-added")
        try app.flush()
        try added.flush()

        let withArguments = try fixture.defaults(arguments: [
            "/bin/app", "-k", "argument", "-only-argument", "argument",
        ])
        // A suite whose own domain is the primary one, with the app domain after it.
        let primary = try fixture.suite(
            "group.primary", configuration: fixture.configuration(arguments: ["/bin/app", "-k", "argument"]))
        for defaults in [withArguments, primary] {
            try defaults.addSuite(named: "group.added")
            defaults.register(["k": "registration", "only-registration": "registration"])
        }
        primary.set("primary", forKey: "k")
        primary.set("primary", forKey: "only-primary")

        #expect(withArguments.string(forKey: "k") == "argument")
        #expect(withArguments.string(forKey: "only-argument") == "argument")
        #expect(withArguments.string(forKey: "only-app") == "app")
        #expect(withArguments.string(forKey: "only-added") == "added")
        #expect(withArguments.string(forKey: "only-global") == "global")
        #expect(withArguments.string(forKey: "only-registration") == "registration")

        // Peel the domains off one by one: each next one must show through.
        var expected = ["argument", "primary", "app", "added", "global", "registration"]
        #expect(primary.string(forKey: "k") == expected.removeFirst())
        primary.removeVolatileDomain(forName: Defaults.argumentDomain)
        #expect(primary.string(forKey: "k") == expected.removeFirst())
        primary.removeObject(forKey: "k")
        #expect(primary.string(forKey: "k") == expected.removeFirst())
        try primary.setPersistentValues([:], forName: "com.example.Homepwner")
        #expect(primary.string(forKey: "k") == expected.removeFirst())
        primary.removeSuite(named: "group.added")
        #expect(primary.string(forKey: "k") == expected.removeFirst())
        try primary.setPersistentValues([:], forName: Defaults.globalDomain)
        #expect(primary.string(forKey: "k") == expected.removeFirst())
        primary.removeVolatileDomain(forName: Defaults.registrationDomain)
        #expect(primary.object(forKey: "k") == nil)
    }

    @Test("Registration never overrides a stored value, and shows again once the value is removed")
    func registrationIsAFallback() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let first = try fixture.defaults()
        first.set(5, forKey: "cardMatrixRows")
        try first.flush()

        // The seed's pattern: register early in a later launch.
        let later = try fixture.defaults()
        try later.register(defaults: ["cardMatrixRows": 4, "cardMatrixColumns": 3])
        #expect(later.integer(forKey: "cardMatrixRows") == 5, "a registered value replaced the stored one")
        #expect(later.integer(forKey: "cardMatrixColumns") == 3)
        #expect(
            later.persistentDomain(forName: "com.example.Homepwner")?["cardMatrixColumns"] == nil,
            "registration must not be written into the persistent domain")
        later.removeObject(forKey: "cardMatrixRows")
        #expect(later.integer(forKey: "cardMatrixRows") == 4)
        try later.flush()
        #expect(try fixture.file("com.example.Homepwner") == .dictionary([:]), "registered values must never be saved")
    }

    @Test("Command-line values are read as plist literals, else kept as strings")
    func argumentDomainParsesLiterals() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let defaults = try fixture.defaults(arguments: [
            "/bin/app", "-Rows", "4", "-Names", "(a, \"b c\")", "-Box", "{ w = 2; }", "-Verbose", "YES",
            "--not-a-default", "-Plain", "hello world", "-Dangling",
        ])
        #expect(defaults.integer(forKey: "Rows") == 4)
        #expect(defaults["Rows"] == "4", "like Apple's, a bare word stays a string")
        #expect(defaults.stringArray(forKey: "Names") == ["a", "b c"])
        #expect(defaults["Box"] == ["w": "2"])
        #expect(defaults.bool(forKey: "Verbose"))
        #expect(defaults.string(forKey: "Plain") == "hello world")
        #expect(defaults["-not-a-default"] == nil && defaults["not-a-default"] == nil)
        #expect(defaults["Dangling"] == nil)
        #expect(defaults.volatileValues(forName: Defaults.argumentDomain).count == 5)
    }

    @Test("Argument values are never saved")
    func argumentsStayVolatile() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let defaults = try fixture.defaults(arguments: ["/bin/app", "-Rows", "9"])
        defaults.set(2, forKey: "Rows")
        #expect(defaults.integer(forKey: "Rows") == 9, "the argument domain wins over a set")
        try defaults.flush()
        #expect(try fixture.file("com.example.Homepwner") == ["Rows": 2])
    }

    @Test("Custom volatile domains are kept in memory and not searched, as Apple's are not")
    func volatileDomains() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let defaults = try fixture.defaults()
        try defaults.setVolatileDomain(["session": "abc"], forName: "Session")
        #expect(defaults.volatileDomain(forName: "Session")["session"] as? String == "abc")
        #expect(defaults.volatileDomainNames == [Defaults.argumentDomain, Defaults.registrationDomain, "Session"])
        #expect(defaults.object(forKey: "session") == nil)
        try defaults.setVolatileDomain(["shown": true], forName: Defaults.registrationDomain)
        #expect(defaults.bool(forKey: "shown"))
        defaults.removeVolatileDomain(forName: "Session")
        #expect(defaults.volatileDomainNames == [Defaults.argumentDomain, Defaults.registrationDomain])
        try defaults.flush()
        #expect(
            !FileManager.default.fileExists(
                atPath: try fixture.preferences().appendingPathComponent("Session.plist").path))
    }

    @Test(arguments: NameValidator.separatorLookAlikes.sorted { $0.value < $1.value }.map(String.init))
    func domainsWithSeparatorLookAlikesAreRefused(lookAlike: String) throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let error = #expect(throws: DefaultsError.self) { try fixture.suite("group\(lookAlike)a") }
        #expect(error?.code == .invalidDomain)
        let defaults = try fixture.defaults()
        #expect(throws: DefaultsError.self) { try defaults.addSuite(named: "group\(lookAlike)a") }
    }

    @Test("A suite may not be the global domain, and must name one file")
    func suiteNamesAreChecked() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        for name in [Defaults.globalDomain, "", "..", "a/b", "x\0y"] {
            let error = #expect(throws: DefaultsError.self, "\(name.debugDescription)") { try fixture.suite(name) }
            #expect(error?.code == .invalidDomain)
        }
        let defaults = try fixture.defaults()
        #expect(throws: DefaultsError.self) { try defaults.addSuite(named: "../escape") }
        // A group container's suite is named after the group: that is its own domain.
        let group = try fixture.suite("group.a", in: "group.a")
        group.set(1, forKey: "k")
        try group.flush()
        #expect(try fixture.file("group.a", in: "group.a") == ["k": 1])
    }

    @Test("dictionaryRepresentation merges every searched domain with the winners' values")
    func dictionaryRepresentation() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let defaults = try fixture.defaults(arguments: ["/bin/app", "-a", "argument"])
        defaults.register(["a": "registration", "b": "registration", "c": 3])
        defaults.set("app", forKey: "b")
        let all = defaults.dictionaryRepresentation()
        #expect(all["a"] as? String == "argument")
        #expect(all["b"] as? String == "app")
        #expect(all["c"] as? Int == 3)
        #expect(all.count == 3)
    }
}
