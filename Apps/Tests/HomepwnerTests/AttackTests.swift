import AppStores
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import HomepwnerApp

/// What a hostile web page or client could send Homepwner: each is refused, bounded or
/// harmless, and the inventory is as it was.
@Suite("Attacks")
@MainActor struct AttackTests {
    static let crossSite: HTTPFields = [.origin: "https://evil.example"]

    @Test("A cross-site POST gets 403 and changes nothing; the same origin and plain clients still work")
    func crossSiteRequestsAreRefused() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let body = Array("name=Pwned".utf8)
            // A form or fetch with a text/plain body needs no CORS preflight.
            let forged = try await client.post("/items", body: body, contentType: "text/plain", headers: Self.crossSite)
            #expect(forged.status == .forbidden)
            let sameSite = try await client.post(
                "/items", body: body, contentType: "text/plain", headers: [.init("Sec-Fetch-Site")!: "same-site"])
            #expect(sameSite.status == .forbidden, "another port of this host is another origin")
            let settings = try await client.post(
                "/settings", body: Array("sortOrder=name&currencyFormat=cents".utf8),
                contentType: "application/x-www-form-urlencoded", headers: [.origin: "null"])
            #expect(settings.status == .forbidden)
            let lifecycle = try await client.post(
                "/lifecycle", body: Array("event=hidden".utf8), contentType: "text/plain", headers: Self.crossSite)
            #expect(lifecycle.status == .forbidden)
            #expect(harness.inventory.allItems.isEmpty)
            #expect(harness.inventory.sortOrder == .manual)

            let sameOrigin = try await client.post(
                "/items", body: Array("name=Bike".utf8), contentType: "application/x-www-form-urlencoded",
                headers: [.origin: "http://localhost", .init("Sec-Fetch-Site")!: "same-origin"])
            #expect(sameOrigin.status == .seeOther)
            #expect(
                try await client.post("/items", form: [("name", "Lamp")]).status == .seeOther,
                "curl sends neither header")
            #expect(harness.inventory.allItems.map(\.name) == ["Bike", "Lamp"])
        }
    }

    @Test("A request naming another host gets 421, reads included (DNS rebinding)")
    func foreignHostIsRefused() async throws {
        try await HTTPHarness.run(allowedHosts: AllowedHosts(names: ["homepwner.example"])) {
            harness, client async throws in
            // The test client names `localhost`, which this server is not.
            #expect(try await client.get("/api/items").status == .misdirectedRequest)
            #expect(try await client.get("/").status == .misdirectedRequest)
        }
        let hosts = AllowedHosts(bindingTo: "0.0.0.0", names: ["homepwner.local"])
        #expect(hosts.allows(authority: "127.0.0.1:8080"))
        #expect(hosts.allows(authority: "[::1]:8080"))
        #expect(hosts.allows(authority: "192.168.1.20:8080"), "a wildcard bind answers on any address")
        #expect(hosts.allows(authority: "HOMEPWNER.local."))
        #expect(!hosts.allows(authority: "evil.example:8080"))
        #expect(!hosts.allows(authority: "127.0.0.1.evil.example"))
        #expect(!AllowedHosts(bindingTo: "127.0.0.1").allows(authority: "10.0.0.1:8080"))
    }

    @Test("Photos are served with nosniff")
    func photosAreNotSniffed() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "1")
            _ = try await client.upload("/items/\(item.itemKey)/photo", data: TestImages.png)
            let photo = try await client.get("/items/\(item.itemKey)/photo")
            #expect(photo.headers[.xContentTypeOptions] == "nosniff")
            #expect(try await client.get("/").headers[.xContentTypeOptions] == "nosniff")
        }
    }

    @Test("The item list is served a page at a time, with the count and total of every item")
    func itemListIsPaginated() async throws {
        let harness = try HTTPHarness()
        for index in 0..<25 {
            try await harness.inventory.createItem(name: "Item \(index)", serialNumber: nil, valueInDollars: "2")
        }
        try await harness.run(pageSize: 10) { client async throws in
            let first = try await client.get("/").text
            #expect(first.components(separatedBy: "<tr data-key=").count - 1 == 10)
            #expect(first.contains("page 1 of 3"))
            #expect(first.contains("25 items"))
            #expect(first.contains("id=\"total\" class=\"value\">$50"))
            let last = try await client.get("/?page=3").text
            #expect(last.components(separatedBy: "<tr data-key=").count - 1 == 5)
            #expect(last.contains(">Item 24<"))
            #expect(!last.contains(">Item 0<"))
            // The last item's "move down" button is the only disabled one on the last page.
            #expect(last.contains("value=\"25\"><button disabled"))
            #expect(try await client.get("/?page=0").status == .badRequest)
            #expect(try await client.get("/?page=99").text.contains("page 3 of 3"), "past the end shows the last page")
        }
    }

    @Test("An inventory filled to its 100,000-item limit serves one page of 100, small and quick")
    func fullInventoryServesOnePage() async throws {
        let harness = try HTTPHarness()
        // Filled in one change: a request each would wait for 100,000 fsyncs.
        harness.inventory.itemStore.replaceAll(
            with: (0..<harness.inventory.limits.maxItems).map {
                Item(name: "Item \($0)", serialNumber: "S\($0)", valueInDollars: 1)
            })
        try await harness.inventory.itemStore.flush()
        await #expect(throws: HomepwnerError.self) { try await harness.inventory.createRandomItem() }
        try await harness.run { client async throws in
            let clock = ContinuousClock()
            let started = clock.now
            let page = try await client.get("/?page=500").text
            let elapsed = clock.now - started
            // Before pagination this page was 86 MB and took 3.3 s of CPU in a release build.
            #expect(page.utf8.count < 200_000, "one page, not the whole inventory: \(page.utf8.count) bytes")
            #expect(page.components(separatedBy: "<tr data-key=").count - 1 == 100)
            #expect(page.contains(">Item 49999<") && !page.contains(">Item 50000<"))
            #expect(page.contains("100000 items") || page.contains("100,000 items"))
            // A sanitizer's instrumentation costs several times the time: the bound is a plain build's.
            if Sanitizer.active == nil {
                #expect(elapsed < .seconds(5), "a page of a full inventory took \(elapsed)")
            }
        }
    }

    @Test("A name of one letter and thousands of combining marks is refused")
    func combiningMarksCountTowardsTheNameLimit() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let name = "e" + String(repeating: "\u{0301}", count: 5_000)
            #expect(name.count == 1)
            let reply = try await client.post("/items", form: [("name", name)])
            #expect(reply.status == .badRequest)
            #expect(harness.inventory.allItems.isEmpty)
            let accented = String(repeating: "é", count: 200)
            #expect(try await client.post("/items", form: [("name", accented)]).status == .seeOther)
        }
    }

    @Test("An upload made of near-misses of a long boundary is parsed in linear time")
    func adversarialMultipartIsCheap() async throws {
        // A boundary of 200 dashes makes the delimiter 202 dashes; a body of runs of 201
        // dashes matches all but its last byte at every position, which a naive search
        // compares anew each time.
        let boundary = String(repeating: "-", count: 200)
        let nearMiss = [UInt8](repeating: UInt8(ascii: "-"), count: 201) + [UInt8(ascii: "x")]
        var bytes: [UInt8] = []
        while bytes.count < 8 << 20 { bytes += nearMiss }
        let body = bytes
        // Measured on this thread's CPU clock, so a loaded machine does not make it fail:
        // the quadratic search took 2.8 s of CPU in a release build for this body, and
        // many times that in a debug build.
        let start = Self.threadCPUTime()
        #expect(throws: HomepwnerError.self) { try MultipartForm(bytes: body, boundary: boundary) }
        let elapsed = Self.threadCPUTime() - start
        #expect(elapsed < 2, "took \(elapsed) s of CPU")
        // Through the server as well: refused with 400.
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "1")
            let reply = try await client.post(
                "/items/\(item.itemKey)/photo", body: body, contentType: "multipart/form-data; boundary=\(boundary)")
            #expect(reply.status == .badRequest)
        }
    }

    static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
