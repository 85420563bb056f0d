import Foundation
import TestSupport
import Testing

/// Homepwner in a real browser: headless Chromium fills the forms and uploads a
/// photo, the page is hidden, the server is stopped with `SIGTERM` and started again,
/// and everything is back. Screenshots go to `.build/screenshots/`.
@Suite("Browser", .serialized)
@MainActor struct BrowserTests {
    static let screenshots = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/screenshots", isDirectory: true)

    @Test(
        "Items and a photo made in the browser survive hiding the page, SIGTERM and a restart",
        .enabled(if: Chromium.path != nil, "chromium is not installed; .ci/run installs it (apt-get install chromium)"),
        .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"))
    func itemsAndPhotoSurviveRestart() throws {
        let scratch = TemporaryDirectory("homepwner-browser")
        defer { scratch.remove() }
        let containers = scratch.url
        let photoFile = containers.appendingPathComponent("camera.png")
        try RealImages.png.write(to: photoFile)

        let browser = try Chromium()
        defer { browser.close() }
        try browser.attachToPage()

        var server = try ServerProcess(containers: containers)
        let base = server.baseURL.absoluteString
        try browser.navigate(to: "\(base)/")
        #expect(try browser.evaluate("document.body.innerText.includes('No items yet.')") as? Bool == true)

        for (name, serial, value) in [("Bike", "B1K3", "300"), ("Camera", "C4M", "120"), ("Lamp", "", "45")] {
            try browser.submitAndWait(
                """
                const f = document.getElementById('new-item');
                f.name.value = \(Chromium.quote(name)); f.serialNumber.value = \(Chromium.quote(serial));
                f.valueInDollars.value = \(Chromium.quote(value)); f.requestSubmit()
                """)
        }
        try browser.submitAndWait("document.querySelector('#random-item button').click()")
        #expect(try browser.evaluate("document.querySelectorAll('#items tbody tr').length") as? Int == 4)
        let total =
            try browser.evaluate("Number(document.getElementById('total').textContent.replace(/[$,]/g, ''))") as? Int
        #expect((465..<565).contains(total ?? 0), "the total is the three values plus the random item's (below 100)")

        // Open the camera's page by its link and upload a photo through the form.
        try browser.submitAndWait(
            "[...document.querySelectorAll('#items a')].find(a => a.textContent === 'Camera').click()")
        try browser.setFile("#photo-upload input[type=file]", path: photoFile.path)
        try browser.submitAndWait("document.getElementById('photo-upload').requestSubmit()")
        try browser.waitUntil(
            "document.getElementById('photo') !== null && document.getElementById('photo').complete && document.getElementById('photo').naturalWidth === 64"
        )

        try browser.navigate(to: "\(base)/")
        try browser.waitUntil(
            "[...document.images].every(i => i.complete && i.naturalWidth > 0) && document.images.length === 1")
        try browser.screenshot(to: Self.screenshots.appendingPathComponent("homepwner-1-items.png"))

        // Focus: the page's blur and focus make the app resign and regain active.
        try browser.send("Emulation.setFocusEmulationEnabled", ["enabled": true])
        try server.waitForOutput(matching: "page event: focus", timeout: .seconds(15))
        var mark = server.mark
        try browser.send("Emulation.setFocusEmulationEnabled", ["enabled": false])
        try server.waitForOutput(matching: "page event: blur", since: mark)
        try server.waitForOutput(matching: "applicationWillResignActive(_:)", since: mark)
        mark = server.mark
        try browser.send("Emulation.setFocusEmulationEnabled", ["enabled": true])
        try server.waitForOutput(matching: "applicationDidBecomeActive(_:)", since: mark)

        // Hide the page: leaving it fires visibilitychange (hidden) and pagehide, which
        // the page reports; the app enters the background and saves.
        mark = server.mark
        _ = try browser.send("Page.navigate", ["url": "about:blank"])
        try server.waitForOutput(matching: "applicationDidEnterBackground(_:)", since: mark, timeout: .seconds(15))
        try server.waitForOutput(matching: "Saved all of the Items", since: mark)
        #expect(try server.terminate() == 0)
        #expect(server.log.contains("applicationWillTerminate"))

        server = try ServerProcess(containers: containers)
        let again = server.baseURL.absoluteString
        try browser.navigate(to: "\(again)/")
        try browser.waitUntil("[...document.images].every(i => i.complete) && document.images.length === 1")
        let names =
            try browser.evaluate("[...document.querySelectorAll('#items td.name a')].map(a => a.textContent)")
            as? [String]
        #expect(names?.prefix(3) == ["Bike", "Camera", "Lamp"])
        #expect(names?.count == 4)
        #expect(try browser.evaluate("document.body.innerText.includes('B1K3')") as? Bool == true)
        #expect(try browser.evaluate("document.images[0].naturalWidth") as? Int == 64)
        try browser.screenshot(to: Self.screenshots.appendingPathComponent("homepwner-2-after-restart.png"))

        try browser.submitAndWait(
            "[...document.querySelectorAll('#items a')].find(a => a.textContent === 'Camera').click()")
        try browser.waitUntil(
            "document.getElementById('photo') !== null && document.getElementById('photo').naturalWidth === 64")
        try browser.navigate(to: "\(again)/container")
        #expect(
            try browser.evaluate("document.getElementById('backup').innerText.includes('Documents/items.archive')")
                as? Bool == true)
        try browser.screenshot(to: Self.screenshots.appendingPathComponent("homepwner-3-container.png"))
        #expect(try server.terminate() == 0)
    }

    @Test(
        "A form that a page of another origin posts to Homepwner is refused (403) and adds nothing",
        .enabled(if: Chromium.path != nil, "chromium is not installed; .ci/run installs it (apt-get install chromium)"),
        .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"))
    func crossOriginFormIsRefused() async throws {
        let scratch = TemporaryDirectory("homepwner-cross-origin")
        defer { scratch.remove() }
        let containers = scratch.url
        let otherScratch = TemporaryDirectory("homepwner-other-origin")
        defer { otherScratch.remove() }
        let otherContainers = otherScratch.url
        let target = try ServerProcess(containers: containers)
        // Another server on another port is another origin, as any other site would be.
        let other = try ServerProcess(containers: otherContainers)
        let browser = try Chromium()
        defer { browser.close() }
        try browser.attachToPage()

        try browser.navigate(to: "\(other.baseURL.absoluteString)/")
        let action = Chromium.quote("\(target.baseURL.absoluteString)/items")
        try browser.submitAndWait(
            """
            const f = document.createElement('form'); f.method = 'post'; f.action = \(action);
            f.enctype = 'text/plain';
            const i = document.createElement('input'); i.name = 'name'; i.value = 'Pwned'; f.appendChild(i);
            document.body.appendChild(f); f.submit()
            """)
        #expect(try browser.evaluate("document.body.innerText.startsWith('403')") as? Bool == true)
        #expect(try await HTTP.items(target.baseURL).isEmpty)

        // The app's own form, in the same browser, still adds an item.
        try browser.navigate(to: "\(target.baseURL.absoluteString)/")
        try browser.submitAndWait(
            "const f = document.getElementById('new-item'); f.name.value = 'Bike'; f.requestSubmit()")
        #expect(try await HTTP.items(target.baseURL).map(\.name) == ["Bike"])
        #expect(try target.terminate() == 0)
        #expect(try other.terminate() == 0)
    }
}
