import Foundation
import HomepwnerApp
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Settings, container and lifecycle routes")
@MainActor struct SettingsAndContainerTests {
    @Test("A first run shows the registered defaults")
    func registeredDefaults() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let page = try await client.get("/settings").text
            #expect(page.contains("value=\"manual\" checked"))
            #expect(page.contains("value=\"dollars\" checked"))
            #expect(page.contains("name=\"showSerialNumbers\" value=\"on\" checked"))
            #expect(harness.inventory.sortOrder == .manual)
        }
    }

    @Test("A shared inventory's settings page shows what waits, and how far a first sync has come")
    func settingsShowSyncProgress() async throws {
        try await HTTPHarness.run { harness, client async throws in
            harness.inventory.outbox = {
                Outbox(
                    pendingItems: 2, pendingSettings: 0, lastPush: nil, lastError: nil,
                    itemsReceived: (5_000, 50_000))
            }
            let page = try await client.get("/settings").text
            #expect(page.contains("<strong id=\"pending-items\">2</strong>"))
            #expect(page.contains("<strong id=\"received-items\">5000</strong> of 50000"))
            harness.inventory.outbox = {
                Outbox(pendingItems: 0, pendingSettings: 0, lastPush: nil, lastError: nil)
            }
            #expect(try await !client.get("/settings").text.contains("received-items"), "nothing shown once taken")
        }
    }

    @Test("Saved settings change how the list is sorted and shown")
    func saveSettings() async throws {
        try await HTTPHarness.run { harness, client async throws in
            try await harness.inventory.createItem(name: "Small", serialNumber: "SERIAL-1", valueInDollars: "1000")
            try await harness.inventory.createItem(name: "Big", serialNumber: nil, valueInDollars: "2500")
            let saved = try await client.post("/settings", form: [("sortOrder", "value"), ("currencyFormat", "cents")])
            #expect(saved.status == .seeOther)
            #expect(saved.location == "/settings?saved=1")
            #expect(try await client.get("/settings?saved=1").text.contains("Settings saved."))
            let page = try await client.get("/").text
            #expect(page.contains("$2,500.00"))
            #expect(page.contains("$3,500.00"))
            #expect(!page.contains("SERIAL-1"), "serial numbers were switched off")
            #expect(page.range(of: ">Big</a>")!.lowerBound < page.range(of: ">Small</a>")!.lowerBound)
            #expect(harness.inventory.currencyFormat == .cents)
            #expect(!harness.inventory.showsSerialNumbers)
        }
    }

    @Test(
        "Settings outside the choices are refused and nothing changes",
        arguments: [
            [("sortOrder", "price"), ("currencyFormat", "dollars")],
            [("sortOrder", "name"), ("currencyFormat", "yen")],
            [("currencyFormat", "dollars")],
        ])
    func badSettings(_ form: [(String, String)]) async throws {
        try await HTTPHarness.run { harness, client async throws in
            #expect(try await client.post("/settings", form: form).status == .badRequest)
            #expect(harness.inventory.sortOrder == .manual)
            #expect(harness.inventory.currencyFormat == .dollars)
            #expect(harness.inventory.showsSerialNumbers)
        }
    }

    @Test("The container page lists the directories and the backup plan")
    func containerPage() async throws {
        try await HTTPHarness.run { harness, client async throws in
            try harness.container.directory(.caches).write(Data("cache".utf8), to: "thumbs.bin")
            let page = try await client.get("/container")
            #expect(page.status == .ok)
            let text = page.text
            for directory in ["Documents/", "Library/Caches/", "Library/Preferences/", "tmp/"] {
                #expect(text.contains("<code>\(directory)</code>"))
            }
            #expect(text.contains("<code>Library/Caches/thumbs.bin</code></td><td>5 bytes</td><td>no</td>"))
            #expect(text.contains(harness.container.url.path))
            for (directory, backedUp) in [
                ("Documents/", "yes"), ("Library/", "yes"), ("Library/Preferences/", "yes"),
                ("Library/Application Support/", "yes"), ("Library/Caches/", "no"), ("tmp/", "no"),
            ] {
                let row = try #require(text.range(of: "<tr data-directory=\"\(directory)\">"))
                let end = try #require(text.range(of: "</tr>", range: row.upperBound..<text.endIndex))
                #expect(
                    text[row.upperBound..<end.lowerBound].hasSuffix("<td>\(backedUp)</td>"),
                    "\(directory) backed up: \(backedUp)")
            }
        }
    }

    @Test("Page events are accepted, and bad ones refused")
    func pageEvents() async throws {
        try await HTTPHarness.run { harness, client async throws in
            for event in PageEvent.allCases {
                #expect(try await client.post("/lifecycle", form: [("event", event.rawValue)]).status == .ok)
            }
            // sendBeacon posts URLSearchParams as a form, fetch may send text/plain.
            #expect(
                try await client.post(
                    "/lifecycle", body: Array("event=hidden".utf8), contentType: "text/plain;charset=UTF-8"
                ).status == .ok)
            #expect(try await client.post("/lifecycle", form: [("event", "explode")]).status == .badRequest)
            #expect(try await client.post("/lifecycle", form: []).status == .badRequest)
            let page = try await client.get("/lifecycle")
            #expect(page.status == .ok)
            #expect(page.text.contains("id=\"log\""))
        }
    }
}
