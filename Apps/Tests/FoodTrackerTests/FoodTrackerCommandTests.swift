import Foundation
import TestSupport
import Testing

/// Runs the built `foodtracker` binary, as a user would, across separate processes.
@Suite("foodtracker command")
struct FoodTrackerCommandTests {
    static let executable: URL? = BuiltProducts.executable(named: "foodtracker")

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func run(_ arguments: [String], containers: URL) throws -> Result {
        let executable = try #require(Self.executable, "build the foodtracker product first (swift build)")
        let result = try ChildProcess.run(executable, arguments + ["--container", containers.path])
        return Result(status: result.exitCode, stdout: result.outputText, stderr: result.errorText)
    }

    func withContainers(_ body: (URL) throws -> Void) throws {
        let folder = TemporaryDirectory("foodtracker")
        defer { folder.remove() }
        try body(folder.url)
    }

    @Test("First run lists the samples; changes survive across processes")
    func samplesThenPersistence() throws {
        try withContainers { folder in
            let first = try run(["list"], containers: folder)
            #expect(first.status == 0)
            #expect(first.stdout.contains("first run"))
            #expect(first.stdout.contains("1. Caprese Salad  ★★★★☆"))
            #expect(first.stdout.contains("2. Chicken and Potatoes  ★★★★★"))

            #expect(try run(["add", "Ramen", "--rating", "4"], containers: folder).status == 0)
            #expect(try run(["rate", "1", "2"], containers: folder).status == 0)
            #expect(try run(["edit", "2", "--name", "Roast Chicken"], containers: folder).status == 0)
            #expect(try run(["delete", "3"], containers: folder).status == 0)

            let later = try run(["list"], containers: folder)
            #expect(!later.stdout.contains("first run"))
            #expect(later.stdout.contains("1. Caprese Salad  ★★☆☆☆"))
            #expect(later.stdout.contains("2. Roast Chicken  ★★★★★"))
            #expect(later.stdout.contains("3. Ramen  ★★★★☆"))
            #expect(!later.stdout.contains("Pasta"))

            // The sample photo comes back out as the PNG it was; a meal without one says so.
            let photo = folder.appendingPathComponent("meal1.png")
            #expect(try run(["photo", "1", "-o", photo.path], containers: folder).status == 0)
            #expect(try Data(contentsOf: photo).starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let none = try run(["photo", "3", "-o", photo.path], containers: folder)
            #expect(none.status != 0)
            #expect(none.stderr.contains("no photo"))
        }
    }

    static let databaseURL = ProcessInfo.processInfo.environment["KEEPSAKE_TEST_DATABASE_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Whether the built `foodtracker` has the Database trait: without it, `--database`
    /// says so; with it, a URL that is none fails as one.
    static let canShareThroughDatabase: Bool = {
        guard let executable, let probe = try? ChildProcess.run(executable, ["list", "--database", "not a URL"])
        else { return false }
        return !probe.errorText.contains("Database trait")
    }()

    @Test(
        "Two containers share their meals through PostgreSQL: each command takes the other's changes first and pushes its own",
        .enabled(
            if: databaseURL != nil,
            "skipped: no PostgreSQL (set KEEPSAKE_TEST_DATABASE_URL; scripts/test.sh starts one)"),
        .enabled(if: canShareThroughDatabase, "skipped: foodtracker was built without the Database trait"))
    func twoProcessesShareMeals() async throws {
        let url = try #require(Self.databaseURL)
        // A Homepwner test takes the shared server away for a while: not during this one.
        try await TestDatabaseTurns.during { try shareMeals(url) }
    }

    func shareMeals(_ url: String) throws {
        // The meals' store has the app's one name: those an earlier run left go first.
        try withContainers { folder in
            let one = folder.appendingPathComponent("one")
            let two = folder.appendingPathComponent("two")
            func meals(_ containers: URL) throws -> [String] {
                let result = try run(["list", "--database", url], containers: containers)
                #expect(result.status == 0, "\(result.stderr)")
                return result.stdout.split(separator: "\n").map(String.init).filter { $0.first?.isNumber == true }
            }
            for line in try meals(one).reversed() {
                _ = try run(["delete", String(line.prefix { $0.isNumber }), "--database", url], containers: one)
            }
            #expect(try meals(one).isEmpty && meals(two).isEmpty, "with a database, the meals are the database's")
            #expect(try run(["add", "Ramen", "--rating", "4", "--database", url], containers: one).status == 0)
            #expect(try meals(two) == ["1. Ramen  ★★★★☆"], "the other process lists the meal added")
            #expect(try run(["rate", "1", "2", "--database", url], containers: two).status == 0)
            #expect(try run(["add", "Soup", "--database", url], containers: two).status == 0)
            #expect(try meals(one) == ["1. Ramen  ★★☆☆☆", "2. Soup  ☆☆☆☆☆"], "and the first its rating and meal")
            #expect(try run(["delete", "1", "--database", url], containers: one).status == 0)
            #expect(try meals(two) == ["1. Soup  ☆☆☆☆☆"])
            let unreachable = try run(
                ["add", "Toast", "--database", "postgres://nobody@127.0.0.1:1/none"], containers: one)
            #expect(unreachable.status != 0 && !unreachable.stderr.isEmpty, "no database: a clear failure")
        }
    }

    @Test("Bad input fails with a message and changes nothing")
    func badInput() throws {
        try withContainers { folder in
            _ = try run(["list"], containers: folder)
            for arguments in [
                ["rate", "1", "9"], ["rate", "8", "3"], ["delete", "0"], ["add", "", "--rating", "2"],
                ["add", "Soup", "--rating", "6"], ["edit", "1", "--rating", "-2"],
                ["add", "Soup", "--photo", "/no/such/file"],
            ] {
                let result = try run(arguments, containers: folder)
                #expect(result.status != 0, "\(arguments) should fail")
                #expect(!result.stderr.isEmpty)
            }
            let list = try run(["list"], containers: folder)
            #expect(list.stdout.split(separator: "\n").count == 3)
            #expect(list.stdout.contains("1. Caprese Salad  ★★★★☆"))
        }
    }
}
