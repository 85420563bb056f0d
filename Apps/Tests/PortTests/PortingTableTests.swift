import Foundation
import Keepsake
import Testing

/// The README's porting table, row by row: below each `// Row:` line is the Keepsake
/// side of that row, written out. This file compiling is what shows the table is
/// exact; ``everyRowIsWrittenOut()`` shows no row is missing here. The code is only
/// compiled, never run: it would touch the user's own container.
@Suite struct PortingTableTests {
    @Test("Every row of the README's porting table has its Keepsake side compiled here")
    func everyRowIsWrittenOut() throws {
        let here = try String(contentsOfFile: #filePath, encoding: .utf8)
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md"),
            encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(lines.firstIndex(of: "| Apple | Keepsake |"))
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("|") }
        #expect(rows.count > 20)
        for row in rows {
            let apple = row.dropFirst(2).components(separatedBy: " | ")[0]
            #expect(here.contains("// Row: \(apple)\n"), "no compiled counterpart for the README row \(apple)")
        }
    }
}

// MARK: The table, written out

// Row: `import UIKit`, `import Foundation`
// This file's two imports above: `URL` and `Data` come from Foundation, the rest from Keepsake.

// Row: `class Item: NSObject, NSCoding`
class TableNSObjectItem: NSObject, KeyedCoding {
    let name: String
    init(name: String) {
        self.name = name
        super.init()
    }
    func encode(with aCoder: KeyedEncoder) { aCoder.encode(name, forKey: "name") }
    required init(coder aDecoder: KeyedDecoder) {
        name = aDecoder.decodeObject(forKey: "name") as! String
        super.init()
    }
}

// Row: `class Item: NSObject, NSSecureCoding`, `static var supportsSecureCoding: Bool { true }`
class TableItem: KeyedSecureCoding {
    class var supportsSecureCoding: Bool { true }
    var name: String
    var valueInDollars: Int
    var isFavourite: Bool
    init(name: String) {
        self.name = name
        valueInDollars = 0
        isFavourite = false
    }
    // Row: `encode(with aCoder: NSCoder)` / `required init?(coder aDecoder: NSCoder)`
    func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
        aCoder.encode(isFavourite, forKey: "isFavourite")
    }
    required init?(coder aDecoder: KeyedDecoder) {
        // Row: `aDecoder.decodeObject(forKey:) as! String`, `decodeInteger(forKey:)`, `decodeBool(forKey:)`
        name = aDecoder.decodeObject(forKey: "name") as! String
        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
        isFavourite = aDecoder.decodeBool(forKey: "isFavourite")
        _ = try? aDecoder.decode(String.self, forKey: "name")
    }
}

/// The other spellings the coding protocol accepts: a struct's throwing and failable
/// initializers.
struct TableThrowingStruct: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    func encode(with aCoder: KeyedEncoder) {}
    init(coder aDecoder: KeyedDecoder) throws {}
}

struct TableFailableStruct: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    func encode(with aCoder: KeyedEncoder) {}
    init?(coder aDecoder: KeyedDecoder) { return nil }
}

@MainActor
func portingTable(items: [TableItem], url: URL, path: String, data: Data) throws {
    // Row: `NSKeyedArchiver.archiveRootObject(items, toFile: path)`
    _ = KeyedArchiver.archiveRootObject(items, toFile: path)
    try KeyedArchiver.archive(items, to: url)

    // Row: `NSKeyedUnarchiver.unarchiveObject(withFile: path) as? [Item]`
    _ = KeyedUnarchiver.unarchiveObject(withFile: path) as? [TableItem]
    _ = try KeyedUnarchiver.unarchivedObject(ofClass: [TableItem].self, contentsOf: url)

    // Row: `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`
    let archive = try KeyedArchiver.archivedData(withRootObject: items)

    // Row: `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`
    _ = try KeyedUnarchiver.unarchivedObject(ofClass: [TableItem].self, from: archive)

    // Row: `NSKeyedArchiver.setClassName(_:for:)`, `NSKeyedUnarchiver.setClass(_:forClassName:)` (class methods)
    KeyedArchiver.setClassName("Homepwner.Item", for: TableItem.self)
    KeyedUnarchiver.setClass(TableItem.self, forClassName: "Homepwner.Item")

    // Row: the same, on one archiver or unarchiver
    let encoder = KeyedEncoder()
    encoder.setClassName("Homepwner.Item", for: TableItem.self)
    let decoder = try KeyedDecoder(forReadingFrom: archive)
    decoder.setClass(TableItem.self, forClassName: "Homepwner.Item")

    // Row: `PropertyListSerialization.propertyList(from:options:format:)`
    let (plist, format) = try PropertyListReader().propertyList(from: data)
    _ = try PropertyListReader().readWithFormat([UInt8](data))

    // Row: `PropertyListSerialization.data(fromPropertyList:format:options:)`
    _ = try PropertyListWriter(format: format).data(fromPropertyList: plist)
    _ = try PropertyListWriter.binary.write(["name": "Rusty Spork"])

    // Row: `FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)`
    let documents = AppContainer.main.urls(for: .documentDirectory, in: .userDomainMask).first!
    _ = AppContainer.main.documentsDirectory

    // Row: `FileManager.default.url(for:in:appropriateFor:create:)`
    _ = try AppContainer.main.url(
        for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)

    // Row: `data.write(to: url, options: .atomic)`, `string.write(to: url, atomically: true, encoding: .utf8)`
    try FileSystem.default.write(data, to: documents.appendingPathComponent("a"))
    try FileSystem.default.write("howdy", to: documents.appendingPathComponent("b"))
    try AppContainer.main.directory(.documents).write(data, to: "c")

    // Row: `URLResourceValues.isExcludedFromBackup`
    try AppContainer.main.directory(.documents).setExcludedFromBackup(true, for: "c")

    // Row: `NSFileCoordinator().coordinate(writingItemAt: url, options: [], error: &error) { … }`
    var error: NSError?
    FileCoordinator().coordinate(writingItemAt: url, options: [], error: &error) { url in
        try? FileSystem.default.write(data, to: url)
    }
    try FileCoordinator().coordinate(writingItemAt: url) { url in try FileSystem.default.write(data, to: url) }

    // Row: `NSFileAccessIntent.writingIntent(with:options:)`, `coordinate(with:queue:byAccessor:)`
    let intent = FileAccessIntent.writingIntent(with: url, options: [])
    FileCoordinator().coordinate(with: [intent], queue: .main) { error in _ = intent.url }

    // Row: `Bundle.main.url(forResource:withExtension:)`, `path(forResource:ofType:)`, `bundleIdentifier`, `infoDictionary`
    _ = ResourceBundle.main.url(forResource: "sample", withExtension: "plist")
    _ = ResourceBundle.main.path(forResource: "sample", ofType: "plist")
    _ = (ResourceBundle.main.bundleIdentifier, ResourceBundle.main.infoDictionary)
    _ = ResourceBundle(bundle: .main)

    // Row: `UserDefaults.standard`, `UserDefaults(suiteName:)`
    Defaults.standard.set(5, forKey: "rows")
    _ = try Defaults(
        suiteName: "group.com.example.shared", container: AppContainer(identifier: "group.com.example.shared"))

    // Row: `import os.log`; `os_log("Saved.", log: OSLog.default, type: .debug)`
    os_log("Saved.", log: OSLog.default, type: .debug)
    os_log(
        "Saved %d items to %{public}@", log: OSLog(subsystem: "com.example", category: "store"), type: .error, 3,
        "Items")

    // Row: `beginBackgroundTask(expirationHandler:)`
    let app = Application(delegate: TableDelegate())
    let task = app.beginBackgroundTask(expirationHandler: {})
    app.endBackgroundTask(task)

    // Row: `didReceiveMemoryWarning`, `NSCache`
    let cache = MemoryCache<String, Data>(countLimit: 10)
    cache.setObject(data, forKey: "k")
    let key = "k"
    cache.setObject(data, forKey: key as NSString)
    _ = cache.object(forKey: key as NSString)

    // Row: `UIImage`, `UIImage(data:)`, `UIImageJPEGRepresentation(_:_:)`
    let photoStore = try BlobStore(container: .main)
    try photoStore.set(data, forKey: "photo")
    let photo: Data? = try photoStore.data(forKey: "photo")
    _ = (photo, try photoStore.imageKind(forKey: "photo") == .jpeg)

    // Row: the seeds' `ItemStore`, `ImageStore`
    let itemStore = try ItemStore<TableItem>(container: .main)
    itemStore.allItems[0].name = "Red bike"
    itemStore.attach(to: app)
    let imageStore = try BlobStore(container: .main)
    try imageStore.set(data, forKey: "photo")
}

// Row: `UIApplicationDelegate`, `UIApplication`
// The delegate is on the main actor, as UIKit's is: in Swift 6 mode it holds the books'
// own store, a plain class of plain classes, with no `Sendable` anywhere.
class TableDelegate: ApplicationDelegate {
    var window: AnyObject?
    let itemStore = TableBooksItemStore()

    // Row: `application(_:didFinishLaunchingWithOptions:)` with `[UIApplicationLaunchOptionsKey: Any]?`
    func application(
        _ application: Application, didFinishLaunchingWithOptions launchOptions: [ApplicationLaunchOptionsKey: Any]?
    ) -> Bool {
        itemStore.allItems.append(TableItem(name: "Bike"))
        return true
    }
    func applicationDidEnterBackground(_ application: Application) {
        itemStore.allItems[0].name = "Red bike"
        _ = itemStore.saveChanges()
    }
    func applicationDidReceiveMemoryWarning(_ application: Application) {}
}

/// The books' `ItemStore`, as they write it.
class TableBooksItemStore {
    var allItems = [TableItem]()
    let itemArchiveURL = AppContainer.main.urls(for: .documentDirectory, in: .userDomainMask).first!
        .appendingPathComponent("items.archive")

    func saveChanges() -> Bool {
        KeyedArchiver.archiveRootObject(allItems, toFile: itemArchiveURL.path)
    }
}
