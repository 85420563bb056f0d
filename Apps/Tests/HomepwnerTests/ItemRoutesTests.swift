import Foundation
import HomepwnerApp
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Item routes")
@MainActor struct ItemRoutesTests {
    @Test("An empty inventory shows the empty list, the add form and a zero total")
    func emptyList() async throws {
        try await HTTPHarness().run { client async throws in
            let page = try await client.get("/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("No items yet."))
            #expect(page.text.contains("id=\"new-item\""))
            #expect(page.text.contains("<td id=\"total\" class=\"value\">$0</td>"))
        }
    }

    @Test("Adding an item redirects to the list, which shows its fields and the total")
    func addItem() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let created = try await client.post(
                "/items", form: [("name", "Bike"), ("serialNumber", "B1K3"), ("valueInDollars", "1300")])
            #expect(created.status == .seeOther)
            #expect(created.location == "/")
            _ = try await client.post("/items", form: [("name", "Lamp"), ("valueInDollars", "45")])
            let page = try await client.get("/").text
            #expect(page.contains(">Bike</a>"))
            #expect(page.contains("B1K3"))
            #expect(page.contains("$1,300"))
            #expect(page.contains("<td id=\"total\" class=\"value\">$1,345</td>"))
            #expect(page.contains("2 items"))
            let items = harness.inventory.allItems
            #expect(items.map(\.name) == ["Bike", "Lamp"])
            #expect(items[1].serialNumber == nil)
        }
    }

    @Test("A random item is named from the book's adjectives and nouns")
    func randomItem() async throws {
        try await HTTPHarness.run { harness, client async throws in
            for _ in 0..<5 {
                #expect(try await client.post("/items/random", form: []).status == .seeOther)
            }
            let items = harness.inventory.allItems
            #expect(items.count == 5)
            for item in items {
                let words = item.name.split(separator: " ").map(String.init)
                #expect(words.count == 2 && Item.adjectives.contains(words[0]) && Item.nouns.contains(words[1]))
                #expect((0..<100).contains(item.valueInDollars))
                #expect(item.serialNumber?.count == 5)
            }
        }
    }

    @Test(
        "Malformed item forms are refused with 400 and add nothing",
        arguments: [
            [("name", ""), ("valueInDollars", "5")],
            [("name", "   "), ("valueInDollars", "5")],
            [("valueInDollars", "5")],
            [("name", "Bike"), ("valueInDollars", "ten")],
            [("name", "Bike"), ("valueInDollars", "-1")],
            [("name", "Bike"), ("valueInDollars", "99999999999999999999999")],
            [("name", "Bike"), ("valueInDollars", "1.5")],
            [("name", String(repeating: "x", count: 201))],
            [("name", "Bell\u{07}")],
            [("name", "Bike"), ("serialNumber", String(repeating: "s", count: 65))],
        ])
    func badForms(_ form: [(String, String)]) async throws {
        try await HTTPHarness.run { harness, client async throws in
            let response = try await client.post("/items", form: form)
            #expect(response.status == .badRequest)
            #expect(response.text.hasPrefix("400 Bad Request: "))
            #expect(harness.inventory.allItems.isEmpty)
        }
    }

    @Test("Bodies that are not forms, bad escapes and oversized forms are refused")
    func badBodies() async throws {
        try await HTTPHarness.run { harness, client async throws in
            #expect(
                try await client.post("/items", body: Array("{\"name\":\"x\"}".utf8), contentType: "application/json")
                    .status == .unsupportedMediaType)
            #expect(
                try await client.post(
                    "/items", body: Array("name=%ZZ".utf8), contentType: "application/x-www-form-urlencoded"
                ).status == .badRequest)
            #expect(
                try await client.post(
                    "/items", body: [0x6E, 0x3D, 0xFF, 0xFE], contentType: "application/x-www-form-urlencoded"
                ).status == .badRequest)
            let huge = Array("name=".utf8) + [UInt8](repeating: 0x61, count: 70_000)
            #expect(
                try await client.post("/items", body: huge, contentType: "application/x-www-form-urlencoded").status
                    == .contentTooLarge)
            #expect(harness.inventory.allItems.isEmpty)
        }
    }

    @Test("Editing changes the fields; a bad edit changes nothing")
    func editItem() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Bike", serialNumber: "B1", valueInDollars: "10")
            let page = try await client.get("/items/\(item.itemKey)")
            #expect(page.status == .ok)
            #expect(page.text.contains("value=\"Bike\""))
            let edited = try await client.post(
                "/items/\(item.itemKey)", form: [("name", "Red Bike"), ("serialNumber", ""), ("valueInDollars", "25")])
            #expect(edited.status == .seeOther)
            #expect(edited.location == "/items/\(item.itemKey)")
            let bad = try await client.post(
                "/items/\(item.itemKey)", form: [("name", "Blue Bike"), ("valueInDollars", "lots")])
            #expect(bad.status == .badRequest)
            let after = try #require(harness.inventory.item(forKey: item.itemKey))
            #expect(after.name == "Red Bike")
            #expect(after.serialNumber == nil)
            #expect(after.valueInDollars == 25)
            #expect(after.dateCreated == item.dateCreated)
        }
    }

    @Test("Unknown item keys get 404 on every item route")
    func unknownKeys() async throws {
        try await HTTPHarness.run { harness, client async throws in
            try await harness.inventory.createItem(name: "Bike", serialNumber: nil, valueInDollars: "1")
            let key = "no-such-item"
            #expect(try await client.get("/items/\(key)").status == .notFound)
            #expect(try await client.post("/items/\(key)", form: [("name", "X")]).status == .notFound)
            #expect(try await client.post("/items/\(key)/delete", form: []).status == .notFound)
            #expect(try await client.delete("/items/\(key)").status == .notFound)
            #expect(try await client.post("/items/\(key)/move", form: [("to", "0")]).status == .notFound)
            #expect(try await client.get("/items/\(key)/photo").status == .notFound)
            #expect(try await client.upload("/items/\(key)/photo", data: TestImages.png).status == .notFound)
            #expect(try await client.post("/items/\(key)/photo/delete", form: []).status == .notFound)
            #expect(try await client.delete("/items/\(key)/photo").status == .notFound)
            #expect(try await client.get("/items/..%2F..%2Fetc%2Fpasswd").status == .notFound)
            #expect(harness.inventory.allItems.map(\.name) == ["Bike"])
        }
    }

    @Test("Deleting by form or by DELETE removes the item")
    func deleteItem() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let a = try await harness.inventory.createItem(name: "A", serialNumber: nil, valueInDollars: "1")
            let b = try await harness.inventory.createItem(name: "B", serialNumber: nil, valueInDollars: "2")
            let c = try await harness.inventory.createItem(name: "C", serialNumber: nil, valueInDollars: "3")
            #expect(try await client.post("/items/\(b.itemKey)/delete", form: []).status == .seeOther)
            #expect(try await client.delete("/items/\(a.itemKey)").status == .noContent)
            #expect(harness.inventory.allItems.map(\.itemKey) == [c.itemKey])
            #expect(try await client.get("/items/\(b.itemKey)").status == .notFound)
        }
    }

    @Test("Moving reorders the manual list; bad targets are refused or clamped")
    func moveItem() async throws {
        try await HTTPHarness.run { harness, client async throws in
            for name in ["A", "B", "C", "D"] {
                try await harness.inventory.createItem(name: name, serialNumber: nil, valueInDollars: "1")
            }
            let keys = harness.inventory.allItems.map(\.itemKey)
            #expect(try await client.post("/items/\(keys[3])/move", form: [("to", "0")]).status == .seeOther)
            #expect(harness.inventory.allItems.map(\.name) == ["D", "A", "B", "C"])
            #expect(try await client.post("/items/\(keys[0])/move", form: [("to", "99")]).status == .seeOther)
            #expect(harness.inventory.allItems.map(\.name) == ["D", "B", "C", "A"])
            #expect(try await client.post("/items/\(keys[1])/move", form: [("to", "up")]).status == .badRequest)
            #expect(try await client.post("/items/\(keys[1])/move", form: []).status == .badRequest)
            #expect(harness.inventory.allItems.map(\.name) == ["D", "B", "C", "A"])
            let page = try await client.get("/").text
            let order = ["D", "B", "C", "A"].map { page.range(of: ">\($0)</a>")!.lowerBound }
            #expect(order == order.sorted())
        }
    }

    @Test("Sorting by a query or the saved setting; a bad sort is refused")
    func sorting() async throws {
        try await HTTPHarness.run { harness, client async throws in
            try await harness.inventory.createItem(name: "Mid", serialNumber: nil, valueInDollars: "50")
            try await harness.inventory.createItem(name: "Cheap", serialNumber: nil, valueInDollars: "5")
            try await harness.inventory.createItem(name: "Dear", serialNumber: nil, valueInDollars: "500")
            func order(_ page: String) -> [String] {
                ["Mid", "Cheap", "Dear"].sorted {
                    page.range(of: ">\($0)</a>")!.lowerBound < page.range(of: ">\($1)</a>")!.lowerBound
                }
            }
            #expect(order(try await client.get("/").text) == ["Mid", "Cheap", "Dear"])
            #expect(order(try await client.get("/?sort=value").text) == ["Dear", "Mid", "Cheap"])
            #expect(order(try await client.get("/?sort=name").text) == ["Cheap", "Dear", "Mid"])
            #expect(order(try await client.get("/?sort=date").text) == ["Dear", "Cheap", "Mid"])
            #expect(try await client.get("/?sort=price").status == .badRequest)
        }
    }

    @Test("Names are escaped in every page")
    func escaping() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(
                name: "<script>alert(1)</script> & \"Co\"", serialNumber: "<b>", valueInDollars: "1")
            for uri in ["/", "/items/\(item.itemKey)"] {
                let page = try await client.get(uri).text
                #expect(!page.contains("<script>alert"))
                #expect(!page.contains("<b>"))
                #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;"))
            }
        }
    }

    @Test("The JSON API lists every item with its fields")
    func jsonAPI() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Bike", serialNumber: "S", valueInDollars: "7")
            let response = try await client.get("/api/items")
            #expect(response.headers[.contentType] == "application/json")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(response.bytes)) as? [[String: Any]])
            #expect(rows.count == 1)
            #expect(rows.first?["itemKey"] as? String == item.itemKey)
            #expect(rows.first?["valueInDollars"] as? Int == 7)
            #expect(rows.first?["hasPhoto"] as? Bool == false)
        }
    }

    @Test("Static assets are served and unknown routes are 404")
    func assets() async throws {
        try await HTTPHarness().run { client async throws in
            let script = try await client.get("/app.js")
            #expect(script.status == .ok)
            #expect(script.text.contains("visibilitychange"))
            #expect(script.text.contains("/lifecycle"))
            #expect(try await client.get("/style.css").headers[.contentType]?.hasPrefix("text/css") == true)
            #expect(try await client.get("/nowhere").status == .notFound)
            #expect(try await client.get("/items").status == .seeOther)
        }
    }

    @Test("Random bytes posted to every form route get a 4xx or a redirect, never a crash or a 500")
    func randomBodies() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Bike", serialNumber: nil, valueInDollars: "1")
            let routes = [
                "/items", "/items/\(item.itemKey)", "/items/\(item.itemKey)/move", "/items/nope/move",
                "/settings", "/lifecycle", "/items/\(item.itemKey)/photo",
            ]
            var generator = SystemRandomNumberGenerator()
            for round in 0..<210 {
                let count = Int.random(in: 0..<300, using: &generator)
                var body = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                // Half the rounds look like forms, with = and & and escapes in them.
                if round % 2 == 0 { body = body.map { [0x3D, 0x26, 0x25, 0x2B, 0x61, $0][Int($0 % 6)] } }
                let types = [
                    "application/x-www-form-urlencoded", "text/plain", "image/png", "multipart/form-data; boundary=x",
                ]
                let reply = try await client.post(
                    routes[round % routes.count], body: body, contentType: types[round % types.count])
                #expect(reply.status.code < 500, "round \(round): \(reply.status)")
            }
            #expect(try await client.get("/").status == .ok)
            #expect(harness.inventory.item(forKey: item.itemKey) != nil, "no route here deletes an item")
        }
    }
}
