import Foundation
import PortCheck
import Testing

/// The seeds' ports in `Apps/Ports`: port-check finds nothing left in them, and the
/// edits they needed against the books' code (kept beside each port in `Original/`)
/// are what the README says.
@Suite struct SeedPortTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each ported seed: its name in the README's table, its folder, its files.
    static let ports: [(seed: String, folder: String, files: [String])] = [
        (
            "Homepwner", "Apps/Ports/Homepwner",
            ["Item.swift", "ItemStore.swift", "ImageStore.swift", "AppDelegate.swift"]
        ),
        ("FoodTracker", "Apps/Ports/FoodTracker", ["Meal.swift", "MealTableViewController.swift"]),
        ("Neuburg", "Apps/Ports/Neuburg", ["PersistentStorage.swift"]),
    ]

    @Test("port-check finds nothing in the ports, and finds the books' calls in the originals", arguments: ports)
    func portCheck(seed: String, folder: String, files: [String]) throws {
        let port = Self.repository.appendingPathComponent(folder)
        #expect(try PortChecker.check(paths: [port.path]) == [], "the \(seed) port still calls Foundation")
        let originals = files.map { port.appendingPathComponent("Original/\($0).txt").path }
        #expect(try !PortChecker.check(paths: originals).isEmpty)
    }

    @Test("The README's porting table records each seed's edits, counted against the books' code", arguments: ports)
    func editCounts(seed: String, folder: String, files: [String]) throws {
        let port = Self.repository.appendingPathComponent(folder)
        var edits = 0
        for file in files {
            let original = try String(contentsOf: port.appendingPathComponent("Original/\(file).txt"), encoding: .utf8)
            let ported = try String(contentsOf: port.appendingPathComponent(file), encoding: .utf8)
            edits += EditCount.lines(from: original, to: ported)
        }
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("| \(seed) | \(edits) |"), "the README does not record \(edits) edits for \(seed)")
    }

    @Test("Edits are changed, removed and added lines; lines about UIKit do not count")
    func counting() {
        let original = "import UIKit\nimport os.log\nclass A: NSObject {\nvar p: UIImage?\nlet x = 1\n}\n"
        let ported = "import Keepsake\nclass A: KeyedCoding {\nvar p: Data?\nlet x = 1\nlet y = 2\n}\n"
        // os.log removed (1), the class line changed (1), y added (1); UIKit lines aside.
        #expect(EditCount.lines(from: original, to: ported) == 3)
        #expect(EditCount.lines(from: original, to: original) == 0)
    }
}

/// Lines changed between a seed's code and its port, UIKit lines aside.
enum EditCount {
    /// UIKit's names and the view-controller calls the books make on it.
    static let uiKitNames = [
        "UIKit", "UIImage", "UITableView", "UIViewController", "UIApplication", "UIStoryboard", "IBAction",
        "IBOutlet", "viewDidLoad", "navigationItem", "editButtonItem", "sourceViewController",
        "table view controller", "UIResponder", "UIWindow", "UINavigationController", "rootViewController",
        "topViewController",
    ]

    /// A line about UIKit, which has no counterpart on Linux, or a blank one: not an
    /// edit a port could avoid.
    static func isUIKitOrBlank(_ line: Substring) -> Bool {
        line.allSatisfy(\.isWhitespace) || uiKitNames.contains { line.contains($0) }
    }

    /// For each run of differing lines: the original's lines removed or changed (not
    /// counting UIKit lines), plus the port's lines beyond those (insertions).
    static func lines(from original: String, to ported: String) -> Int {
        let old = original.split(separator: "\n", omittingEmptySubsequences: false)
        let new = ported.split(separator: "\n", omittingEmptySubsequences: false)
        // Longest common subsequence table, from the ends.
        var common = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var (i, j, edits) = (0, 0, 0)
        var removed: [Substring] = []
        var added = 0
        func closeRun() {
            let counted = removed.filter { !isUIKitOrBlank($0) }.count
            edits += counted + max(0, added - removed.count)
            removed = []
            added = 0
        }
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                closeRun()
                i += 1
                j += 1
            } else if j < new.count, i == old.count || common[i][j + 1] >= common[i + 1][j] {
                added += 1
                j += 1
            } else {
                removed.append(old[i])
                i += 1
            }
        }
        closeRun()
        return edits
    }
}
