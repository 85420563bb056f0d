import Foundation
import KeyedArchive
import TestSupport
import Testing

/// The FoodTracker lesson's code, ported with the porting table only (Ports/FoodTracker),
/// run as a user would run it: its meals survive the process, and an archive it cannot
/// read is neither lost nor overwritten.
@Suite(.enabled(if: Port.executable(named: "FoodTrackerPort") != nil, "FoodTrackerPort is not built"))
final class FoodTrackerPortTests: PortSuite {
    static let port = "FoodTrackerPort"
    let scratch = TemporaryDirectory("keepsake-foodtracker-port")
    var archive: URL { container.appendingPathComponent("Documents/meals") }

    @Test("First launch shows the sample meals; an added meal is saved and read by the next process")
    func mealsPersistAcrossLaunches() throws {
        let first = try run()
        #expect(first.output == "Caprese Salad: 4\nChicken and Potatoes: 5\nPasta with Meatballs: 3\n")
        #expect(!FileManager.default.fileExists(atPath: archive.path), "the lesson saves only after a change")

        let adding = try run("Ramen", "5")
        #expect(adding.status == 0, "\(adding.errors)")
        #expect(adding.errors.contains("[debug] Meals successfully saved.\n"), "\(adding.errors)")
        let again = try run()
        #expect(
            again.output == "Caprese Salad: 4\nChicken and Potatoes: 5\nPasta with Meatballs: 3\nRamen: 5\n")
    }

    /// What the lesson's archive would hold if a meal had been saved with a rating the
    /// initializer refuses.
    struct RatedNine: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        static var archiveClassName: String { "FoodTrackerPort.Meal" }
        func encode(with coder: KeyedEncoder) {
            coder.encode("Soup", forKey: "name")
            coder.encode(9, forKey: "rating")
        }
        init() {}
        init(coder: KeyedDecoder) throws {}
    }

    @Test("A meal init?(coder:) refuses (a rating of 9) is reported, and the user's archive is not overwritten")
    func unreadableArchiveIsKept() throws {
        try FileManager.default.createDirectory(
            at: archive.deletingLastPathComponent(), withIntermediateDirectories: true)
        let saved = try KeyedArchiver.archivedData(withRootObject: [RatedNine()])
        try saved.write(to: archive)

        let result = try run("Ramen", "5")
        #expect(result.status == 0)
        #expect(result.errors.contains("[error] Failed to save meals...\n"), "\(result.errors)")
        #expect(result.errors.contains("FoodTrackerPort.Meal"), "\(result.errors)")
        #expect(try Data(contentsOf: archive) == saved, "the unreadable archive was replaced")
    }
}
