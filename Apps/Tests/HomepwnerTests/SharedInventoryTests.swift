import Foundation
import HomepwnerApp
import TestSupport
import Testing

/// The database the tests share: `KEEPSAKE_TEST_DATABASE_URL`, which `scripts/test.sh`
/// sets after starting a throwaway PostgreSQL cluster on loopback, and the script that
/// can stop and start it (`KEEPSAKE_TEST_DATABASE_SCRIPT`). None when the apps were
/// built without the `Database` trait, which compiles the database client in.
enum TestDatabase {
    static let url =
        HomepwnerServer.canShareThroughDatabase
        ? ProcessInfo.processInfo.environment["KEEPSAKE_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } : nil
    static let script = ProcessInfo.processInfo.environment["KEEPSAKE_TEST_DATABASE_SCRIPT"].flatMap {
        $0.isEmpty ? nil : $0
    }
    static let skipMessage: Comment =
        HomepwnerServer.canShareThroughDatabase
        ? "skipped: no PostgreSQL (set KEEPSAKE_TEST_DATABASE_URL=postgres://USER@127.0.0.1:PORT/DB; scripts/test.sh starts one)"
        : "skipped: Apps built without the Database trait (swift build --package-path Apps --traits Database)"

    /// Runs the script with `command` (`pause`, `resume`) and waits for it. Its output is
    /// this process's own, not a pipe: the server it starts would hold a pipe open, and
    /// the wait for the pipe's end would outlast the script.
    static func control(_ command: String) throws {
        let script = URL(fileURLWithPath: try #require(script))
        let result = try ChildProcess.run(script, [command], output: .inherit, errors: .inherit, within: .seconds(60))
        try #require(result.status == .exited(0), "test-database.sh \(command) failed: \(result.status)")
    }

    /// `body` with the database taken away by `command` (`pause`, `crash`, `freeze`),
    /// then given back by `restore` (`resume`, `thaw`) whether `body` threw or not, so
    /// that a failing test leaves the database up for the tests after it. During a turn
    /// of its own, so that no test of another target meets the database away.
    static func whileAway(
        _ command: String, restoredBy restore: String, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Void
    ) async throws {
        try await TestDatabaseTurns.during {
            try control(command)
            let outcome: Result<Void, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            try control(restore)
            try outcome.get()
        }
    }

    /// Runs `statements` in the test database as its owner, as anyone with the
    /// database's URL could; returns the rows, a line each, values separated by `|`.
    static func sql(_ statements: String) throws -> String {
        let result = try TestDatabaseScript.sql(statements)
        try #require(result.status == .exited(0), "SQL failed: \(result.errorText)")
        return result.outputText
    }
}

/// Every suite of the one test database, run one at a time: some stop, freeze or crash
/// it, which would fail a suite running beside them for a reason not its own (a change
/// reaching the other instance in 9 s instead of 1 while the database was frozen).
@Suite(.serialized) enum OnTheTestDatabase {}

extension OnTheTestDatabase {
    /// Two Homepwner processes on two ports sharing one inventory through PostgreSQL: one
    /// given `--database`, the other `HOMEPWNER_DATABASE_URL`.
    @Suite(
        "Two instances on one database", .serialized, .enabled(if: TestDatabase.url != nil, TestDatabase.skipMessage))
    @MainActor struct SharedInventoryTests {
        let scratch = TemporaryDirectory("homepwner-shared")
        var containers: URL { scratch.url }
        let first: ServerProcess
        let second: ServerProcess

        init() throws {
            let url = try #require(TestDatabase.url)
            let name = "test.homepwner.\(UUID().uuidString)"
            let containers = scratch.url
            let firstContainers = containers.appendingPathComponent("first").path
            first = try ServerProcess(
                containers: containers,
                arguments: ["--port", "0", "--container", firstContainers, "--database", url, "--shared-name", name])
            second = try ServerProcess(
                containers: containers,
                arguments: [
                    "--port", "0", "--container", containers.appendingPathComponent("second").path, "--shared-name",
                    name,
                ],
                environment: ["HOMEPWNER_DATABASE_URL": url])
        }

        func stop() throws {
            #expect(try first.terminate() == 0)
            #expect(try second.terminate() == 0)
        }

        /// Waits until `condition` holds, at most `timeout`; returns how long it took.
        func waitUntil(
            _ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool
        ) async throws -> Duration {
            let start = ContinuousClock.now
            while try await !condition() {
                guard ContinuousClock.now - start < timeout else {
                    throw ServerProcess.Failure(description: "timed out: \(what)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            return ContinuousClock.now - start
        }

        @Test(
            "Each instance's page shows the other's new item, edit, photo and settings within a second, without a reload",
            .enabled(
                if: Chromium.path != nil, "chromium is not installed; .ci/run installs it (apt-get install chromium)"))
        func pagesFollowTheOtherInstance() async throws {
            let photoFile = containers.appendingPathComponent("camera.png")
            try RealImages.png.write(to: photoFile)
            let here = try Chromium()
            defer { here.close() }
            let there = try Chromium()
            defer { there.close() }
            try here.attachToPage()
            try there.attachToPage()
            try here.navigate(to: "\(first.baseURL.absoluteString)/")
            try there.navigate(to: "\(second.baseURL.absoluteString)/")
            // Survives only as long as the page is not loaded again.
            _ = try there.evaluate("window.notReloaded = true")
            let names = "[...document.querySelectorAll('#items td.name a')].map(a => a.textContent).join('|')"

            try here.submitAndWait(
                """
                const f = document.getElementById('new-item');
                f.name.value = 'Bike'; f.serialNumber.value = 'B1K3'; f.valueInDollars.value = '300'; f.requestSubmit()
                """)
            var took = try await waitUntil("the item reaches the other page") {
                try there.evaluate(names) as? String == "Bike"
            }
            #expect(took < .seconds(1), "the other page showed the new item after \(took)")
            #expect(try there.evaluate("window.notReloaded") as? Bool == true)

            // The other instance edits it on its own item page; the first list follows.
            try there.submitAndWait(
                "[...document.querySelectorAll('#items a')].find(a => a.textContent === 'Bike').click()")
            try there.submitAndWait(
                "const f = document.getElementById('edit-item'); f.name.value = 'Red bike'; f.requestSubmit()")
            took = try await waitUntil("the edit reaches the first page") {
                try here.evaluate(names) as? String == "Red bike"
            }
            #expect(took < .seconds(1), "the first page showed the edit after \(took)")

            // A photo uploaded on the other instance's page appears on the first's list.
            try there.setFile("#photo-upload input[type=file]", path: photoFile.path)
            try there.submitAndWait("document.getElementById('photo-upload').requestSubmit()")
            took = try await waitUntil("the photo reaches the first page") {
                try here.evaluate(
                    "document.images.length === 1 && document.images[0].complete && document.images[0].naturalWidth === 64"
                )
                    as? Bool == true
            }
            #expect(took < .seconds(1), "the first page showed the photo after \(took)")

            // A setting changed on the first instance changes how the other's pages show values.
            try there.navigate(to: "\(second.baseURL.absoluteString)/")
            _ = try there.evaluate("window.notReloaded = true")
            try here.navigate(to: "\(first.baseURL.absoluteString)/settings")
            try here.submitAndWait(
                "const f = document.getElementById('settings'); f.currencyFormat.value = 'cents'; f.requestSubmit()")
            took = try await waitUntil("the setting reaches the other page") {
                try there.evaluate("document.querySelector('#items td.value').textContent") as? String == "$300.00"
            }
            #expect(took < .seconds(1), "the other page showed the setting after \(took)")
            #expect(try there.evaluate("window.notReloaded") as? Bool == true)
            try stop()
        }

        @Test(
            "Both instances edit one item while the database is down: one save wins, the other gets the conflict, the merge keeps both edits",
            .enabled(
                if: TestDatabase.script != nil, "needs KEEPSAKE_TEST_DATABASE_SCRIPT to stop and start the database"))
        func concurrentEditsAreMerged() async throws {
            _ = try await HTTP.postForm(
                first.baseURL.appendingPathComponent("items"),
                [("name", "Bike"), ("serialNumber", ""), ("valueInDollars", "300")])
            _ = try await waitUntil("the item reaches the second instance") {
                try await HTTP.items(second.baseURL).map(\.name) == ["Bike"]
            }
            let key = try await HTTP.items(first.baseURL)[0].itemKey
            try await TestDatabase.whileAway("pause", restoredBy: "resume") {
                // Each instance still takes edits with the database away; they wait in memory.
                let renamed = try await HTTP.postForm(
                    first.baseURL.appendingPathComponent("items/\(key)"),
                    [("name", "Red bike"), ("serialNumber", ""), ("valueInDollars", "300")])
                let revalued = try await HTTP.postForm(
                    second.baseURL.appendingPathComponent("items/\(key)"),
                    [("name", "Bike"), ("serialNumber", ""), ("valueInDollars", "500")])
                #expect(renamed.status == 303 && revalued.status == 303)
                #expect(try await HTTP.items(first.baseURL).map(\.name) == ["Red bike"])
                #expect(try await HTTP.items(second.baseURL).map(\.valueInDollars) == [500])
            }
            for server in [first, second] {
                _ = try await waitUntil("both edits reach \(server.baseURL)", timeout: .seconds(30)) {
                    let items = try await HTTP.items(server.baseURL)
                    return items.map(\.name) == ["Red bike"] && items.map(\.valueInDollars) == [500]
                }
            }
            // Exactly one of the two saves met the other's change; it reports all three versions.
            let reports = [first.log, second.log].filter { $0.contains("Conflict on item \(key)") }
            #expect(reports.count == 1)
            let report = try #require(reports.first)
            #expect(report.contains("ancestor \"Bike\" $300"))
            #expect(report.contains("here \"Red bike\" $300") || report.contains("here \"Bike\" $500"))
            #expect(
                report.contains("saved elsewhere \"Red bike\" $300") || report.contains("saved elsewhere \"Bike\" $500")
            )
            try stop()
        }
    }
}
