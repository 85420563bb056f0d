import Foundation
import PropertyList
import TestSupport
import Testing

/// `keepsake defaults read|write|delete|domains|export|import`, on a container folder
/// made for each test.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class DefaultsCommandTests {
    let scratch = TemporaryDirectory("keepsake-defaults-cli")
    let app = "com.example.Homepwner"
    /// Not made beforehand, as on a first run: the command makes it.
    var containers: URL { scratch.file("containers") }
    var file: URL { containers.appendingPathComponent("\(app)/Library/Preferences/\(app).plist") }

    @discardableResult
    func run(_ arguments: [String], stdin: Data? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run(["defaults"] + arguments + ["--containers", containers.path], stdin: stdin)
    }

    func stored() throws -> PropertyListValue {
        try PropertyListReader().read(try Data(contentsOf: file))
    }

    @Test func typedWritesStoreTheirTypesInABinaryPlist() throws {
        let writes: [([String], PropertyListValue)] = [
            (["plain", "hello world"], "hello world"),
            (["literal", "(a, \"b c\")"], ["a", "b c"]),
            (["s", "-string", "(not parsed)"], "(not parsed)"),
            (["i", "-int", "-42"], -42),
            (["f", "-float", "2.5"], 2.5),
            (["b", "-bool", "YES"], true),
            (["b2", "-bool", "false"], false),
            (["d", "-date", "2026-01-02T03:04:05Z"], .date(Date(timeIntervalSince1970: 1_767_323_045))),
            (["x", "-data", "00ff10"], .data(Data([0, 255, 16]))),
            (["a", "-array", "one", "-int", "2"], ["one", 2]),
            (["m", "-dict", "k", "v", "n", "-bool", "NO"], ["k": "v", "n": false]),
        ]
        for (arguments, _) in writes {
            let result = try run(["write", app] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        #expect(try Data(contentsOf: file).starts(with: Array("bplist00".utf8)))
        let values = try #require(try stored().dictionaryValue)
        for (arguments, expected) in writes {
            #expect(values[arguments[0]] == expected, "\(arguments)")
        }
        #expect(values.count == writes.count)
    }

    @Test func readPrintsTheBareValueOrTheWholeDomain() throws {
        try run(["write", app, "name", "Rusty Spork"])
        try run(["write", app, "count", "-int", "3"])
        try run(["write", app, "on", "-bool", "YES"])
        #expect(try run(["read", app, "name"]).stdout == "Rusty Spork\n")
        #expect(try run(["read", app, "count"]).stdout == "3\n")
        #expect(try run(["read", app, "on"]).stdout == "1\n", "booleans print as 1 and 0, as macOS defaults does")
        let all = try run(["read", app])
        #expect(all.status == 0)
        #expect(all.stdout == "{\n    name = \"Rusty Spork\";\n    count = 3;\n    on = 1;\n}\n")
    }

    @Test func missingDomainsAndKeysFailWithStatusOne() throws {
        var result = try run(["read", app])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Domain \(app) does not exist"))
        try run(["write", app, "k", "v"])
        result = try run(["read", app, "absent"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("(\(app), absent) does not exist"))
        #expect(try run(["delete", app, "absent"]).status == 1)
    }

    @Test(arguments: [
        ["write", "com.example.Homepwner", "k", "-int", "seven"],
        ["write", "com.example.Homepwner", "k", "-bogus", "1"],
        ["write", "com.example.Homepwner", "k"],
        ["write", "com.example.Homepwner", "k", "-dict", "lonely"],
        ["write", "com.example.Homepwner", "k", "-bool", "perhaps"],
        ["write", "com.example.Homepwner", "k", "-data", "abc"],
        ["write", "com.example.Homepwner", "k", "-date", "yesterday"],
        ["write", "com.example.Homepwner", "k", "one", "two"],
        ["read", "not an identifier"],
        ["frobnicate", "com.example.Homepwner"],
    ])
    func usageErrorsExit64(arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file.path), "a usage error must write nothing")
    }

    @Test func deleteRemovesAKeyOrTheDomain() throws {
        try run(["write", app, "a", "1"])
        try run(["write", app, "b", "2"])
        #expect(try run(["delete", app, "a"]).status == 0)
        #expect(try stored() == ["b": "2"])
        #expect(try run(["delete", app]).status == 0)
        #expect(try run(["read", app]).status == 1, "a deleted domain reads as missing")
    }

    @Test func arrayAddAndDictAddExtendTheStoredValue() throws {
        try run(["write", app, "list", "-array", "a"])
        try run(["write", app, "list", "-array-add", "b", "-int", "3"])
        try run(["write", app, "map", "-dict", "k", "v"])
        try run(["write", app, "map", "-dict-add", "n", "-int", "1"])
        #expect(try stored() == ["list": ["a", "b", 3], "map": ["k": "v", "n": 1]])
    }

    @Test func exportAndImportRoundTripThroughXML() throws {
        try run(["write", app, "name", "Spork"])
        try run(["write", app, "n", "-int", "5"])
        let exported = try run(["export", app, "-"])
        #expect(exported.status == 0)
        #expect(exported.stdout.hasPrefix("<?xml"))
        try run(["write", app, "extra", "gone after import"])
        let imported = try run(["import", app, "-"], stdin: exported.stdoutBytes)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try stored() == ["name": "Spork", "n": 5])
        let notADictionary = try run(["import", app, "-"], stdin: Data("(a, b)".utf8))
        #expect(notADictionary.status == 1)
        #expect(try stored() == ["name": "Spork", "n": 5], "a failed import must leave the domain alone")
    }

    @Test func domainsListsTheContainersPreferenceFiles() throws {
        try run(["write", app, "k", "v"])
        let folder = file.deletingLastPathComponent()
        try Data().write(to: folder.appendingPathComponent("group.com.example.shared.plist"))
        try Data().write(to: folder.appendingPathComponent(".GlobalPreferences.plist"))
        let result = try run(["domains", app])
        #expect(result.stdout == "NSGlobalDomain, com.example.Homepwner, group.com.example.shared\n")
    }

    @Test func aCorruptFileIsReportedAndKept() throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: file)
        let result = try run(["write", app, "k", "v"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("corruptFile"))
        let kept = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            .filter { $0.hasPrefix("\(app).plist.corrupt-") }
        #expect(kept.count == 1)
        #expect(try stored() == ["k": "v"])
    }
}
