import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The Homepwner chapter's code (Item, ItemStore, ImageStore, AppDelegate), ported with
/// the porting table only (Ports/Homepwner), run as a user would run it: what it saves
/// on entering the background is there for the next process, an item changed in place
/// included, and an archive copied from the iOS app loads after one `setClass` call.
@Suite(.enabled(if: Port.executable(named: "HomepwnerPort") != nil, "HomepwnerPort is not built"))
final class HomepwnerPortTests: PortSuite {
    static let port = "HomepwnerPort"
    let scratch = TemporaryDirectory("keepsake-homepwner-port")
    var archive: URL { container.appendingPathComponent("Documents/items.archive") }

    @Test("Items added are saved when the app enters the background, in Apple's callback order")
    func itemsPersistAcrossLaunches() throws {
        let first = try run("add", "Bike", "300")
        #expect(first.status == 0, "\(first.errors)")
        #expect(
            first.output == """
                applicationDidBecomeActive(_:)
                Bike: $300
                applicationWillResignActive(_:)
                applicationDidEnterBackground(_:)
                Saving items to: \(archive.path)
                Saved all of the Items

                """)
        _ = try run("add", "Lamp", "25")
        let third = try run()
        #expect(third.output.contains("\nBike: $300\nLamp: $25\napplicationWillResignActive(_:)\n"))
    }

    @Test("The book's NSCoding Item on ItemStore<Item>: the second launch reads what the first saved")
    func bookItemOnTheLibrarysStoreRunsTwice() throws {
        let first = try run("--item-store", "add", "Bike", "300")
        #expect(first.status == 0 && first.output == "Bike: $300\n", "\(first.output)\(first.errors)")
        // Before, this launch threw classNotAllowed: the store refused its own file,
        // since the book's Item adopts KeyedCoding and not KeyedSecureCoding.
        let second = try run("--item-store", "add", "Lamp", "25")
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.output == "Bike: $300\nLamp: $25\n")
        let third = try run("--item-store")
        #expect(third.output == "Bike: $300\nLamp: $25\n", "\(third.errors)")
        #expect(FileManager.default.fileExists(atPath: archive.path), "the background save wrote the book's archive")
    }

    @Test("The first run says which container it made and why it has that name; later runs say nothing")
    func newContainerIsAnnounced() throws {
        let first = try run("add", "Bike", "300")
        #expect(
            first.errors.contains(
                "keepsake: new app container HomepwnerPort (from the executable's name) at \(container.path)"),
            "\(first.errors)")
        let second = try run()
        #expect(!second.errors.contains("new app container"), "\(second.errors)")
    }

    @Test(
        "An item changed in place is saved on entering the background (SIGTSTP); after kill -9 a new process reads it")
    func inPlaceEditIsSavedOnEnteringTheBackground() throws {
        _ = try run("add", "Bike", "300")
        let app = try start("rename", "0", "Red bike", "--wait")
        defer { app.end() }
        try app.waitFor("waiting")
        #expect(app.lines.contains("Red bike: $300"), "the edit is made through the item's reference")
        app.signal(SIGTSTP)
        try app.waitFor("Saved all of the Items")
        try app.waitUntilStopped()
        app.signal(SIGKILL)
        #expect(try app.waitForExit() == .signalled(SIGKILL))

        let next = try run()
        #expect(next.output.hasPrefix("applicationDidBecomeActive(_:)\nRed bike: $300\n"), "\(next.output)")
    }

    @Test("A photo set through the image store is in the container for the next launch")
    func photoPersists() throws {
        _ = try run("add", "Bike", "300")
        let photo = containers.appendingPathComponent("bike.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0xFF, 0xD9]).write(to: photo)
        let set = try run("photo", "0", photo.path)
        #expect(set.output.contains("Bike: $300 (photo)\n"), "\(set.errors)")
        let next = try run()
        #expect(next.output.contains("Bike: $300 (photo)\n"))
        let documents = try FileManager.default.contentsOfDirectory(
            atPath: container.appendingPathComponent("Documents").path)
        #expect(documents.filter { $0 != "items.archive" }.count == 1, "one photo file, named by the item's key")
    }

    @Test(
        "An archive the iOS app wrote (class Homepwner.Item) loads after one setClass call",
        .enabled(if: Bpylist2Peer.isAvailable, Comment(rawValue: Bpylist2Peer.skipMessage)))
    func iOSArchiveLoadsAfterSetClass() throws {
        try writeIOSArchive()
        let result = try run("--ios-archive")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("\nBike: $300\nLamp: $25\n"), "\(result.output)")
        #expect(result.output.contains("Saved all of the Items"))
        // Saved again under the port's own class name: no call needed from now on.
        let next = try run()
        #expect(next.output.contains("\nBike: $300\nLamp: $25\n"), "\(next.errors)")
    }

    @Test(
        "Without setClass the class name and the fix go to standard error, and the user's archive is kept",
        .enabled(if: Bpylist2Peer.isAvailable, Comment(rawValue: Bpylist2Peer.skipMessage)))
    func iOSArchiveWithoutSetClassIsReportedAndKept() throws {
        let saved = try writeIOSArchive()
        let result = try run()
        #expect(result.errors.contains("Homepwner.Item"), "\(result.errors)")
        #expect(result.errors.contains("KeyedUnarchiver.setClass"), "\(result.errors)")
        #expect(result.output.contains("Could not save any of the Items"))
        #expect(!result.output.contains("Saved all of the Items"), "an empty store must not be reported saved")
        #expect(try Data(contentsOf: archive) == saved, "the user's archive was replaced")
    }

    /// Two items archived as the iOS app archives them, under the class name its module
    /// gives `Item`, by Python's `bpylist2` (Foundation on Linux ignores
    /// `setClassName(_:for:)` and always writes its own module's name).
    @discardableResult
    func writeIOSArchive() throws -> Data {
        let items: [[String: Any]] = [
            [
                "name": "Bike", "dateCreated": 500_000_000.0, "itemKey": UUID().uuidString, "serialNumber": "B-1",
                "valueInDollars": 300,
            ],
            ["name": "Lamp", "dateCreated": 500_000_001.0, "itemKey": UUID().uuidString, "valueInDollars": 25],
        ]
        let data = try Bpylist2Peer.run(
            "write-items", className: "Homepwner.Item", input: JSONSerialization.data(withJSONObject: items))
        try FileManager.default.createDirectory(
            at: archive.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: archive)
        return data
    }
}
