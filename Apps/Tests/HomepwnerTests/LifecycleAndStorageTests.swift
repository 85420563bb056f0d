import AppLifecycle
@_spi(Testing) import AppRuntime
import AppSandbox
import AppStores
import Foundation
import HomepwnerApp
import Hummingbird
import HummingbirdTesting
import KeyedArchive
import Testing

@Suite("Lifecycle and storage")
@MainActor struct LifecycleAndStorageTests {
    @Test("Page events move the app between active, inactive, background and foreground, logging each callback")
    func pageEventsDriveTheLifecycle() async throws {
        try await HTTPHarness.run { harness, client async throws in
            #expect(harness.server.application.state == .active)
            func send(_ event: String) async throws -> String {
                let reply = try await client.post("/lifecycle", form: [("event", event)])
                #expect(reply.status == .ok)
                return reply.text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(try await send("blur") == "inactive")
            #expect(try await send("focus") == "active")
            #expect(try await send("hidden") == "background")
            #expect(try await send("visible") == "active")
            #expect(try await send("pagehide") == "background")
            let callbacks = harness.server.log.entries.map(\.message).filter { $0.hasPrefix("application") }
            #expect(
                callbacks == [
                    "applicationDidFinishLaunching(_:)", "applicationDidBecomeActive(_:)",
                    "applicationWillResignActive(_:)", "applicationDidBecomeActive(_:)",
                    "applicationWillResignActive(_:)", "applicationDidEnterBackground(_:)",
                    "applicationWillEnterForeground(_:)", "applicationDidBecomeActive(_:)",
                    "applicationWillResignActive(_:)", "applicationDidEnterBackground(_:)",
                ])
            let page = try await client.get("/lifecycle").text
            #expect(page.contains("applicationDidEnterBackground(_:)"))
            #expect(page.contains("<strong id=\"state\">background</strong>"))
        }
    }

    @Test(
        "A change is durable in the journal when acknowledged; entering the background folds it into Documents/items.archive"
    )
    func backgroundSaves() async throws {
        try await HTTPHarness.run { harness, client async throws in
            _ = try await client.post(
                "/items", form: [("name", "Bike"), ("serialNumber", "B1"), ("valueInDollars", "300")])
            _ = try await client.post("/settings", form: [("sortOrder", "name"), ("currencyFormat", "code")])
            let archive = harness.container.documentsDirectory.appendingPathComponent("items.archive")
            #expect(
                !FileManager.default.fileExists(atPath: archive.path),
                "the book writes its archive on entering the background, not before")
            #expect(!harness.inventory.hasUnsavedChanges, "an acknowledged change is durable: the journal holds it")
            let journal = try harness.container.directory(.documents).contents(of: "items.archive.journal")
            #expect(journal.count > 40, "the journal holds the new item's record after its 40-byte header")
            _ = try await client.post("/lifecycle", form: [("event", "hidden")])
            #expect(
                try harness.container.directory(.documents).contents(of: "items.archive.journal").count == 40,
                "the archive now holds the item, and the journal starts afresh")
            #expect(!harness.inventory.hasUnsavedChanges)
            let items = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: [Item].self, contentsOf: archive))
            #expect(items.map(\.name) == ["Bike"])
            #expect(items.first?.serialNumber == "B1")
            let preferences = try harness.container.directory(.preferences).contentsOfDirectory()
            #expect(preferences.contains("\(HomepwnerServer.identifier).plist"))
            #expect(harness.server.log.entries.contains { $0.message == "Saved all of the Items" })
        }
    }

    @Test("A second server over the same container sees what the first saved")
    func reopen() async throws {
        let container = try AppContainer.temporary(identifier: HomepwnerServer.identifier)
        defer { try? container.destroy() }
        let item: Item
        do {
            let first = try HomepwnerServer(container: container, log: LifecycleLog(echo: false))
            first.application.launch()
            item = try await first.inventory.createItem(name: "Lamp", serialNumber: nil, valueInDollars: "45")
            try await first.inventory.setPhoto(Data(TestImages.png), forKey: item.itemKey)
            try await first.inventory.updateSettings(
                sortOrder: "value", currencyFormat: "cents", showSerialNumbers: false)
            // While the first is open, a second is refused: two journals on one file
            // would each lose the other's records.
            #expect(throws: StoreError.self) {
                try HomepwnerServer(container: container, log: LifecycleLog(echo: false))
            }
            first.application.send(.terminate)
            #expect(first.application.state == .notRunning)
        }

        let second = try HomepwnerServer(container: container, log: LifecycleLog(echo: false))
        #expect(second.inventory.allItems == [item])
        #expect(try await second.inventory.photo(forKey: item.itemKey).data == Data(TestImages.png))
        #expect(second.inventory.sortOrder == .value)
        #expect(second.inventory.currencyFormat == .cents)
        #expect(!second.inventory.showsSerialNumbers)
    }

    @Test(
        "Photos are files named by the item key in Documents/images; deleting the item deletes the file once that is durable"
    )
    func photoFiles() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "80")
            _ = try await client.upload("/items/\(item.itemKey)/photo", data: TestImages.jpeg, partType: "image/jpeg")
            let file = harness.container.documentsDirectory.appendingPathComponent("images/\(item.itemKey)")
            #expect(FileManager.default.contents(atPath: file.path) == Data(TestImages.jpeg))
            _ = try await client.post("/items/\(item.itemKey)/delete", form: [])
            #expect(try await client.get("/items/\(item.itemKey)/photo").status == .notFound)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test("Killed after acknowledged changes, before any save: the deletion and the new item with its photo survive")
    func photosFollowTheSavedItems() async throws {
        let container = try AppContainer.temporary(identifier: HomepwnerServer.identifier)
        defer { try? container.destroy() }
        let kept: Item
        let added: Item
        do {
            let inventory = try Inventory(container: container)
            kept = try await inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "80")
            try await inventory.setPhoto(Data(TestImages.png), forKey: kept.itemKey)
            try inventory.save()
            // Then, acknowledged but never saved: the item is deleted, another added with a photo.
            try await inventory.deleteItem(forKey: kept.itemKey)
            added = try await inventory.createItem(name: "Lens", serialNumber: nil, valueInDollars: "30")
            try await inventory.setPhoto(Data(TestImages.jpeg), forKey: added.itemKey)
            // Killed here: no save, no callback. Opening the container again is the restart.
        }
        let restarted = try Inventory(container: container)
        #expect(restarted.allItems.map(\.itemKey) == [added.itemKey], "an acknowledged change was lost")
        #expect(try await restarted.photo(forKey: added.itemKey).data == Data(TestImages.jpeg))
        #expect(try restarted.imageStore.allKeys() == [added.itemKey], "the deleted item's photo stayed")
    }

    @Test("A damaged item archive stops the server from starting and is kept as it was")
    func corruptArchive() throws {
        let container = try AppContainer.temporary(identifier: HomepwnerServer.identifier)
        defer { try? container.destroy() }
        let garbage = Data("bplist00 but not really".utf8)
        try container.directory(.documents).write(garbage, to: "items.archive")
        #expect(throws: StoreError.self) { try HomepwnerServer(container: container, log: LifecycleLog(echo: false)) }
        #expect(try container.directory(.documents).contents(of: "items.archive") == garbage)
    }

    @Test("The container page shows the saved archive and photo in the backup plan")
    func containerAfterSave() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "80")
            _ = try await client.upload("/items/\(item.itemKey)/photo", data: TestImages.png)
            _ = try await client.post("/settings", form: [("sortOrder", "date"), ("currencyFormat", "dollars")])
            _ = try await client.post("/lifecycle", form: [("event", "hidden")])
            let page = try await client.get("/container").text
            #expect(page.contains("<li><code>Documents/items.archive</code>"))
            #expect(
                page.contains("<li><code>Documents/images/\(item.itemKey)</code> (\(TestImages.png.count) bytes)</li>"))
            #expect(page.contains("<li><code>Library/Preferences/\(HomepwnerServer.identifier).plist</code>"))
        }
    }

    @Test("After the background time the app is suspended (logged, no callback); showing the page brings it back")
    func suspension() async throws {
        let container = try AppContainer.temporary(identifier: HomepwnerServer.identifier)
        defer { try? container.destroy() }
        let scheduler = ManualScheduler()
        let server = try HomepwnerServer(container: container, log: LifecycleLog(echo: false), scheduler: scheduler)
        server.application.launch()
        let app = Hummingbird.Application(router: server.routes.router())
        // On the main actor, where the manual scheduler runs the lifecycle's timers.
        try await app.test(.router) { @MainActor client async throws in
            _ = try await client.execute(
                uri: "/lifecycle", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "event=hidden"))
            #expect(server.application.state == .background)
            scheduler.advance(by: .seconds(60))
            #expect(server.application.state == .suspended)
            #expect(server.log.state == "suspended")
            #expect(server.log.entries.contains { $0.message.hasPrefix("(suspended") })
            let reply = try await client.execute(
                uri: "/lifecycle", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "event=visible"))
            #expect(String(buffer: reply.body) == "active\n")
            let callbacks = server.log.entries.map(\.message).filter { $0.hasPrefix("application") }
            #expect(callbacks.suffix(2) == ["applicationWillEnterForeground(_:)", "applicationDidBecomeActive(_:)"])
        }
    }
}
