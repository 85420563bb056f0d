import AppSandbox
import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

#if canImport(Glibc)
import Glibc
#endif

/// The books' iOS Item, archived by Foundation's NSKeyedArchiver under the name the iOS
/// app writes (`Homepwner.Item`), with the keys the book uses.
final class IOSItem: NSObject, NSCoding {
    let name: String
    let valueInDollars: Int
    init(name: String, valueInDollars: Int) {
        self.name = name
        self.valueInDollars = valueInDollars
    }
    func encode(with aCoder: NSCoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(Date(timeIntervalSinceReferenceDate: 0), forKey: "dateCreated")
        aCoder.encode("KEY-\(name)", forKey: "itemKey")
        aCoder.encode(nil as String?, forKey: "serialNumber")
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
    }
    init?(coder aDecoder: NSCoder) { nil }
}

/// Class names shared by every archiver and unarchiver of the process, and the books'
/// one-liners, which never lose an archive they cannot read. Each test uses a class name
/// of its own, since the mappings are process-wide and tests run in parallel.
struct ProcessClassNameTests {
    static func iOSArchive(className: String, at url: URL) throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(
            [IOSItem(name: "Rusty Spork", valueInDollars: 42), IOSItem(name: "Shiny Mac", valueInDollars: 7)],
            forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        // Foundation on Linux writes the module-qualified name and ignores setClassName;
        // the iOS app's module is Homepwner, so its archive names the class as below.
        let renamed = try SeedModelTests.renamingClass(
            in: archiver.encodedData, from: String(reflecting: IOSItem.self), to: className)
        try renamed.write(to: url)
    }

    /// What `body` writes to standard error (the whole process's, for its duration).
    static func standardError(_ body: () -> Void) throws -> String {
        let scratch = TemporaryDirectory("stderr")
        defer { scratch.remove() }
        let capture = scratch.file("stderr")
        let fd = open(capture.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        let saved = dup(2)
        dup2(fd, 2)
        body()
        dup2(saved, 2)
        close(saved)
        close(fd)
        return try String(contentsOf: capture, encoding: .utf8)
    }

    @Test func anIOSArchiveLoadsThroughTheOneLinerAfterOneSetClass() throws {
        let folder = TemporaryDirectory("one-liner")
        defer { folder.remove() }
        let path = folder.file("items.archive").path
        let className = "Homepwner\(UInt32.random(in: 0...UInt32.max)).Item"
        try Self.iOSArchive(className: className, at: URL(fileURLWithPath: path))
        let original = try Data(contentsOf: URL(fileURLWithPath: path))

        // Without the mapping: nil, said on standard error with the class and the fix,
        // and the books' save on exit does not replace the archive with an empty one.
        var loaded: [Item]?
        let message = try Self.standardError { loaded = KeyedUnarchiver.unarchiveObject(withFile: path) as? [Item] }
        #expect(loaded == nil)
        #expect(message.contains(className), "\(message)")
        #expect(message.contains("KeyedUnarchiver.setClass("), "\(message)")
        var saved = true
        let refusal = try Self.standardError { saved = KeyedArchiver.archiveRootObject([Item](), toFile: path) }
        #expect(!saved, "an unreadable archive was replaced by an empty one")
        #expect(refusal.contains("does not replace"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)

        // One setClass call, as Apple's class method makes it, serves the one-liners.
        KeyedUnarchiver.setClass(Item.self, forClassName: className)
        defer { KeyedUnarchiver.setClass(nil, forClassName: className) }
        #expect(KeyedUnarchiver.class(forClassName: className) == Item.self)
        let items = try #require(KeyedUnarchiver.unarchiveObject(withFile: path) as? [Item])
        #expect(items.map(\.name) == ["Rusty Spork", "Shiny Mac"])
        #expect(items.map(\.valueInDollars) == [42, 7])
        #expect(KeyedArchiver.archiveRootObject(items, toFile: path), "a load that succeeded allows the save again")
    }

    final class Renamed: KeyedSecureCoding, Equatable {
        static var supportsSecureCoding: Bool { true }
        static var archiveClassName: String { "RenamedThing" }
        let value: Int
        init(value: Int) { self.value = value }
        func encode(with coder: KeyedEncoder) { coder.encode(value, forKey: "value") }
        init(coder: KeyedDecoder) throws { value = coder.decodeInteger(forKey: "value") }
        static func == (lhs: Renamed, rhs: Renamed) -> Bool { lhs.value == rhs.value }
    }

    @Test func aClassWithItsOwnArchiveNameReadsItsArchivesBackThroughTheOneLiner() throws {
        let folder = TemporaryDirectory("renamed")
        defer { folder.remove() }
        let path = folder.file("things.archive").path
        #expect(KeyedArchiver.archiveRootObject([Renamed(value: 1), Renamed(value: 2)], toFile: path))
        // `RenamedThing` names no Swift type: the process finds it because it archived it.
        #expect(
            KeyedUnarchiver.unarchiveObject(withFile: path) as? [Renamed] == [Renamed(value: 1), Renamed(value: 2)])
    }

    final class Tagged: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        func encode(with coder: KeyedEncoder) {}
        init() {}
        init(coder: KeyedDecoder) throws {}
    }

    @Test func setClassNameAppliesToEveryArchiver() throws {
        let name = "Legacy\(UInt32.random(in: 0...UInt32.max)).Tagged"
        KeyedArchiver.setClassName(name, for: Tagged.self)
        defer { KeyedArchiver.setClassName(nil, for: Tagged.self) }
        #expect(KeyedArchiver.className(for: Tagged.self) == name)
        let data = try KeyedArchiver.archivedData(withRootObject: Tagged())
        let value = try PropertyListReader().read([UInt8](data))
        #expect(value.description.contains(name))
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Tagged.self, from: data) != nil)
    }
}
