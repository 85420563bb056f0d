import Foundation
import PortCheck
import Testing

/// port-check knows every row of the README's porting table: for each row, Apple's
/// side written as the books write it is reported, with advice naming Keepsake's side.
@Suite struct PortingTableRowTests {
    /// Each row's Apple side (the README's first cell, exactly) and code that uses it.
    /// A row added to the README without code here fails ``everyRowHasASample()``.
    static let samples: [String: String] = [
        "`import UIKit`, `import Foundation`": "import UIKit",
        "`class Item: NSObject, NSCoding`": "class Item: NSObject, NSCoding {}",
        "`class Item: NSObject, NSSecureCoding`, `static var supportsSecureCoding: Bool { true }`":
            "class Item: NSObject, NSSecureCoding { static var supportsSecureCoding: Bool { true } }",
        "`encode(with aCoder: NSCoder)` / `required init?(coder aDecoder: NSCoder)`":
            "class Item { func encode(with aCoder: NSCoder) {} }",
        "`aDecoder.decodeObject(forKey:) as! String`, `decodeInteger(forKey:)`, `decodeBool(forKey:)`":
            "func load(_ aDecoder: NSCoder) { _ = aDecoder.decodeObject(forKey: \"name\") as! String }",
        "`NSKeyedArchiver.archiveRootObject(items, toFile: path)`":
            "_ = NSKeyedArchiver.archiveRootObject(items, toFile: path)",
        "`NSKeyedUnarchiver.unarchiveObject(withFile: path) as? [Item]`":
            "let items = NSKeyedUnarchiver.unarchiveObject(withFile: path) as? [Item]",
        "`NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`":
            "let data = try NSKeyedArchiver.archivedData(withRootObject: items, requiringSecureCoding: true)",
        "`NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`":
            "let item = try NSKeyedUnarchiver.unarchivedObject(ofClass: Item.self, from: data)",
        "`NSKeyedArchiver.setClassName(_:for:)`, `NSKeyedUnarchiver.setClass(_:forClassName:)` (class methods)":
            "NSKeyedUnarchiver.setClass(Item.self, forClassName: \"Homepwner.Item\")",
        "the same, on one archiver or unarchiver":
            "let archiver = NSKeyedArchiver(requiringSecureCoding: true)",
        "`PropertyListSerialization.propertyList(from:options:format:)`":
            "let plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)",
        "`PropertyListSerialization.data(fromPropertyList:format:options:)`":
            "let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)",
        "`FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)`":
            "let urls = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)",
        "`FileManager.default.url(for:in:appropriateFor:create:)`":
            "let url = try FileManager.default.url(for: .documentDirectory, in: .userDomainMask, appropriateFor: nil, create: true)",
        "`data.write(to: url, options: .atomic)`, `string.write(to: url, atomically: true, encoding: .utf8)`":
            "try data.write(to: url, options: .atomic)",
        "`URLResourceValues.isExcludedFromBackup`": "values.isExcludedFromBackup = true",
        "`NSFileCoordinator().coordinate(writingItemAt: url, options: [], error: &error) { … }`":
            "NSFileCoordinator().coordinate(writingItemAt: url, options: [], error: &error) { _ in }",
        "`NSFileAccessIntent.writingIntent(with:options:)`, `coordinate(with:queue:byAccessor:)`":
            "let intent = NSFileAccessIntent.writingIntent(with: url, options: [])",
        "`Bundle.main.url(forResource:withExtension:)`, `path(forResource:ofType:)`, `bundleIdentifier`, `infoDictionary`":
            "let url = Bundle.main.url(forResource: \"sample\", withExtension: \"plist\")",
        "`UserDefaults.standard`, `UserDefaults(suiteName:)`": "UserDefaults.standard.set(5, forKey: \"rows\")",
        "`import os.log`; `os_log(\"Saved.\", log: OSLog.default, type: .debug)`": "import os.log",
        "`UIApplicationDelegate`, `UIApplication`":
            "class AppDelegate: UIResponder, UIApplicationDelegate {}",
        "`application(_:didFinishLaunchingWithOptions:)` with `[UIApplicationLaunchOptionsKey: Any]?`":
            "func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplicationLaunchOptionsKey: Any]?) -> Bool { true }",
        "`beginBackgroundTask(expirationHandler:)`":
            "let task = UIApplication.shared.beginBackgroundTask(expirationHandler: nil)",
        "`didReceiveMemoryWarning`, `NSCache`": "let cache = NSCache<NSString, UIImage>()",
        "`UIImage`, `UIImage(data:)`, `UIImageJPEGRepresentation(_:_:)`": "let image = UIImage(data: data)",
    ]

    /// Rows whose Apple side is no Apple API: nothing for port-check to find.
    static let notAppleAPI: Set = ["the seeds' `ItemStore`, `ImageStore`"]

    static let rows: [String] = {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")
        let lines = ((try? String(contentsOf: readme, encoding: .utf8)) ?? "").split(
            separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(of: "| Apple | Keepsake |") else { return [] }
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map {
            $0.dropFirst(2).components(separatedBy: " | ")[0]
        }
    }()

    @Test("Every row of the README's porting table has a sample here")
    func everyRowHasASample() {
        #expect(Self.rows.count > 20, "the README's porting table was not found")
        for row in Self.rows where !Self.notAppleAPI.contains(row) {
            #expect(Self.samples[row] != nil, "no port-check sample for the README row \(row)")
        }
        #expect(Set(Self.samples.keys).subtracting(Self.rows).isEmpty, "samples for rows the README no longer has")
    }

    @Test("port-check reports each row's Apple side, and says what to use", arguments: samples.keys.sorted())
    func rowIsReported(row: String) throws {
        let source = try #require(Self.samples[row])
        let findings = PortChecker.check(source: source, file: "Sample.swift")
        #expect(!findings.isEmpty, "port-check does not know the row \(row)")
        for finding in findings { #expect(finding.advice.contains("use "), "\(finding)") }
    }

    @Test("The didReceiveMemoryWarning override is reported, and a call of that name in another shape is not")
    func memoryWarningOverride() {
        let override = PortChecker.check(
            source: "class C: UIViewController { override func didReceiveMemoryWarning() {} }", file: "C.swift")
        #expect(override.map(\.api).contains("didReceiveMemoryWarning()"))
        let other = PortChecker.check(
            source: "func didReceiveMemoryWarning(_ level: Int) {}\nfunc didReceiveMemoryWarning() {}", file: "D.swift")
        #expect(other.isEmpty)
    }

    @Test("An import guarded by #if canImport of the same module is code for both platforms, and is not reported")
    func guardedImports() {
        let guarded = PortChecker.check(
            source: "#if canImport(UIKit)\nimport UIKit\n#endif\n#if canImport(os)\nimport os.log\n#endif\n",
            file: "G.swift")
        #expect(guarded.isEmpty, "\(guarded)")
        let unguarded = PortChecker.check(source: "#if DEBUG\nimport UIKit\n#endif\n", file: "U.swift")
        #expect(unguarded.map(\.api) == ["import UIKit"])
    }
}
