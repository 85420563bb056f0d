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
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("foodtracker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
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
