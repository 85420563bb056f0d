import Foundation
import PortCheck
import Testing

@Suite struct PortCheckerTests {
    static func fixture(_ name: String) throws -> (path: String, source: String) {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "swift.txt", subdirectory: "Fixtures/Unported"))
        return (url.path, try String(contentsOf: url, encoding: .utf8))
    }

    /// Every Foundation or UIKit use in the books' unported code that the porting table
    /// replaces, with its line.
    static let expected: [(file: String, findings: [(line: Int, api: String)])] = [
        (
            "Homepwner",
            [
                (2, "import UIKit"), (7, "FileManager.urls(for:in:)"),
                (13, "NSKeyedUnarchiver.unarchiveObject(withFile:)"),
                (20, "NSKeyedArchiver"), (25, "NSCache"), (25, "UIImage"), (27, "UIImage"),
                (31, "Data.write(to:options:)"), (36, "FileManager.urls(for:in:)"),
            ]
        ),
        (
            "FoodTracker",
            [
                (2, "import UIKit"), (3, "import os.log"), (5, "NSCoding"), (6, "FileManager.urls(for:in:)"),
                (14, "NSKeyedArchiver"), (21, "NSKeyedUnarchiver.unarchiveObject(withFile:)"),
            ]
        ),
        (
            "Neuburg",
            [
                (6, "FileManager.url(for:in:appropriateFor:create:)"), (8, "isExcludedFromBackup"),
                (11, "String.write(to:atomically:encoding:)"), (15, "NSFileCoordinator"), (16, "NSFileAccessIntent"),
                (18, "NSKeyedArchiver"), (19, "Data.write(to:options:)"), (24, "UserDefaults.standard"),
                (25, "UserDefaults(suiteName:)"), (26, "Bundle.main"),
            ]
        ),
    ]

    @Test("The books' unported code: every Foundation call that bypasses Keepsake, with its line", arguments: expected)
    func unportedSeedCode(file: String, findings expected: [(line: Int, api: String)]) throws {
        let (path, source) = try Self.fixture(file)
        let findings = PortChecker.check(source: source, file: path)
        #expect(findings.map(\.line) == expected.map(\.line))
        #expect(findings.map(\.api) == expected.map(\.api))
        for finding in findings {
            #expect(finding.advice.contains("use "), "\(finding) does not say what to use")
            #expect(finding.description.hasPrefix("\(path):\(finding.line):\(finding.column): warning: "))
        }
    }

    @Test("A deprecated unarchiving call is reported once, with the secure call that replaces it")
    func deprecatedUnarchivingSuggestsTheSecureCall() throws {
        let source = """
            let items = NSKeyedUnarchiver.unarchiveObject(withFile: path) as? [Item]
            let meal = NSKeyedUnarchiver.unarchiveObject(with: data) as! Meal
            let any = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data)
            let fine = try NSKeyedUnarchiver.unarchivedObject(ofClass: Item.self, from: data)
            """
        let findings = PortChecker.check(source: source, file: "f.swift")
        #expect(
            findings.map(\.api) == [
                "NSKeyedUnarchiver.unarchiveObject(withFile:)", "NSKeyedUnarchiver.unarchiveObject(with:)",
                "NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(_:)", "NSKeyedUnarchiver",
            ])
        #expect(
            findings[0].advice.hasSuffix(
                "use `try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Item.self, "
                    + "from: FileSystem.default.contents(of: URL(fileURLWithPath: path)))`"))
        #expect(
            findings[1].advice.hasSuffix("use `try KeyedUnarchiver.unarchivedObject(ofClass: Meal.self, from: data)`"))
        #expect(findings[2].advice.contains("keepsake unarchive --classes FILE"))
        #expect(findings[3].advice.hasSuffix("use KeyedUnarchiver"))

        let sampled = PortChecker.check(source: source, file: "f.swift", sampleClasses: ["NSArray", "Homepwner.Item"])
        #expect(
            sampled[2].advice.hasSuffix(
                "use `try KeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, Item.self], from: data)` "
                    + "(the classes the sample archive needs)"))
    }

    @Test("A subclass with its own init(coder:) that inherits supportsSecureCoding is reported, and only that")
    func subclassInitWithoutItsOwnSecureCodingAnswer() {
        let source = """
            class Asset: NSObject, NSSecureCoding {
                class var supportsSecureCoding: Bool { true }
                required init?(coder: NSCoder) {}
            }
            final class Camera: Asset {
                required init?(coder: NSCoder) { super.init(coder: coder) }
            }
            final class Lens: Asset {
                override class var supportsSecureCoding: Bool { true }
                required init?(coder: NSCoder) { super.init(coder: coder) }
            }
            final class Strap: Asset {}
            final class Item: KeyedSecureCoding {
                static var supportsSecureCoding: Bool { true }
                init(coder: KeyedDecoder) throws {}
            }
            """
        let findings = PortChecker.check(source: source, file: "f.swift").filter { $0.api.hasPrefix("init(coder:)") }
        #expect(findings.map(\.api) == ["init(coder:) of Camera, a subclass of Asset,"])
        #expect(findings.map(\.line) == [5])
        #expect(findings.first?.advice.hasSuffix("use override class var supportsSecureCoding: Bool { true }") == true)
    }

    @Test("Columns point at the call")
    func columns() {
        let findings = PortChecker.check(
            source: "let ok = 1\n    let d = UserDefaults.standard\n", file: "f.swift")
        #expect(
            findings.map(\.description) == [
                "f.swift:2:13: warning: UserDefaults.standard is Foundation's, which does not save on Linux; use Defaults.standard"
            ])
    }

    @Test("The same names in comments, doc comments and string literals are not code")
    func commentsAndStringsAreIgnored() {
        let source = #"""
            // NSKeyedArchiver.archiveRootObject(items, toFile: path)
            /* UserDefaults.standard, FileManager.default.urls(for: .documentDirectory, in: .userDomainMask) */
            /// Replaces `NSFileCoordinator` and `Bundle.main`.
            let help = "NSKeyedUnarchiver.unarchiveObject(withFile:) and data.write(to: url, options: [.atomic])"
            let multi = """
                UserDefaults(suiteName: "group") and values.isExcludedFromBackup
                """
            let raw = #"NSFileAccessIntent"#
            """#
        #expect(PortChecker.check(source: source, file: "f.swift") == [])
    }

    @Test("Keepsake's own calls of the same names are not reported")
    func keepsakeCallsAreNotReported() {
        let source = """
            let container = AppContainer.main
            let docs = container.urls(for: .documentDirectory, in: .userDomainMask).first!
            let support = try container.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
            try FileSystem.default.write(data, to: docs.appendingPathComponent("x"))
            try container.directory(.documents).write(data, to: "x")
            try KeyedArchiver.archive(items, to: url)
            let items = KeyedUnarchiver.unarchiveObject(withFile: path) as? [Item]
            Defaults.standard.set(5, forKey: "rows")
            let resources = ResourceBundle.main.bundlePath
            FileCoordinator().coordinate(writingItemAt: url, options: [], error: &error) { _ in }
            try directory.setExcludedFromBackup(true, for: "cache")
            """
        #expect(PortChecker.check(source: source, file: "f.swift") == [])
    }

    @Test("A FileManager held in a variable is still FileManager")
    func fileManagerVariables() {
        let source = """
            let fm = FileManager()
            let docs = fm.urls(for: .documentDirectory, in: .userDomainMask)
            let other = container.urls(for: .documentDirectory, in: .userDomainMask)
            """
        #expect(PortChecker.check(source: source, file: "f.swift").map(\.line) == [2])
    }

    @Test("Folders are searched for .swift files, in name order; a missing path is an error")
    func paths() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("port-check-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Sub"), withIntermediateDirectories: true)
        try "let a = NSKeyedArchiver()\n".write(
            to: folder.appendingPathComponent("Sub/B.swift"), atomically: true, encoding: .utf8)
        try "let d = UserDefaults.standard\n".write(
            to: folder.appendingPathComponent("A.swift"), atomically: true, encoding: .utf8)
        try "NSKeyedArchiver\n".write(to: folder.appendingPathComponent("notes.md"), atomically: true, encoding: .utf8)
        let findings = try PortChecker.check(paths: [folder.path])
        #expect(findings.map(\.api) == ["UserDefaults.standard", "NSKeyedArchiver"])
        #expect(throws: (any Error).self) { try PortChecker.check(paths: [folder.appendingPathComponent("none").path]) }
    }
}
