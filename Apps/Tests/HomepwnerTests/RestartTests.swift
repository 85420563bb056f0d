import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built server as a child process: what it acknowledged is there after a restart.
@Suite("Restarts", .serialized, .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"))
struct RestartTests: ContainersOfItsOwn {
    let scratch = TemporaryDirectory("homepwner-tests")

    @Test("Items, photos and settings survive SIGTERM and a restart")
    func sigtermSavesEverything() async throws {
        var server = try ServerProcess(containers: containers)
        var base = server.baseURL
        #expect(
            try await HTTP.postForm(
                base.appendingPathComponent("items"),
                [("name", "Bike"), ("serialNumber", "B1"), ("valueInDollars", "300")]
            ).status == 303)
        #expect(
            try await HTTP.postForm(
                base.appendingPathComponent("items"), [("name", "Camera"), ("valueInDollars", "120")]
            ).status == 303)
        let items = try await HTTP.items(base)
        let camera = try #require(items.first { $0.name == "Camera" })
        let photoURL = base.appendingPathComponent("items/\(camera.itemKey)/photo")
        #expect(try await HTTP.send("POST", photoURL, body: RealImages.png, contentType: "image/png").status == 303)
        #expect(
            try await HTTP.postForm(base.appendingPathComponent("items/\(camera.itemKey)/move"), [("to", "0")]).status
                == 303)
        #expect(
            try await HTTP.postForm(
                base.appendingPathComponent("settings"), [("sortOrder", "name"), ("currencyFormat", "cents")]
            ).status == 303)

        #expect(try server.terminate() == 0)
        #expect(server.log.contains("applicationWillTerminate"))
        server = try ServerProcess(containers: containers)
        base = server.baseURL
        let after = try await HTTP.items(base)
        #expect(after.map(\.name) == ["Camera", "Bike"])
        #expect(after.map(\.itemKey) == [camera.itemKey, items.first { $0.name == "Bike" }!.itemKey])
        #expect(after.first?.hasPhoto == true)
        let photo = try await HTTP.send("GET", base.appendingPathComponent("items/\(camera.itemKey)/photo"))
        #expect(photo.body == RealImages.png)
        #expect(photo.headers["content-type"] == "image/png")
        let settings = String(
            decoding: try await HTTP.send("GET", base.appendingPathComponent("settings")).body, as: UTF8.self)
        #expect(settings.contains("value=\"name\" checked"))
        #expect(settings.contains("value=\"cents\" checked"))
        #expect(try server.terminate() == 0)
    }

    @Test("Entering the background saves: a page hidden, then SIGKILL, loses nothing")
    func backgroundSaves() async throws {
        var server = try ServerProcess(containers: containers)
        var base = server.baseURL
        for name in ["A", "B", "C"] {
            #expect(try await HTTP.postForm(base.appendingPathComponent("items"), [("name", name)]).status == 303)
        }
        let hidden = try await HTTP.postForm(base.appendingPathComponent("lifecycle"), [("event", "hidden")])
        #expect(String(decoding: hidden.body, as: UTF8.self).contains("background"))
        try server.waitForOutput(matching: "applicationDidEnterBackground")
        // SIGKILL gives no callback: only what the background save wrote survives.
        server.child.signal(SIGKILL)
        try server.child.waitForExit()

        server = try ServerProcess(containers: containers)
        base = server.baseURL
        #expect(try await HTTP.items(base).map(\.name) == ["A", "B", "C"])
        #expect(try server.terminate() == 0)
    }

    @Test("Under concurrent edits for a fixed time, every acknowledged edit survives a restart")
    func loadThenRestart() async throws {
        let clients = 8
        let duration: Duration = .seconds(3)
        let maxRequestsPerClient = 2_000
        var server = try ServerProcess(containers: containers)
        let base = server.baseURL
        for client in 0..<clients {
            #expect(
                try await HTTP.postForm(
                    base.appendingPathComponent("items"), [("name", "client \(client)"), ("valueInDollars", "0")]
                ).status == 303)
        }
        let keys = try await HTTP.items(base).map(\.itemKey)
        #expect(keys.count == clients)

        struct Acknowledged: Sendable {
            var client: Int
            var lastValue = 0
            var lastName: String
            var added: [String] = []
            var requests = 0
        }
        let deadline = ContinuousClock.now + duration
        let results = try await withThrowingTaskGroup(of: Acknowledged.self) { group in
            for client in 0..<clients {
                group.addTask {
                    var acknowledged = Acknowledged(client: client, lastName: "client \(client)")
                    var n = 0
                    while ContinuousClock.now < deadline && n < maxRequestsPerClient {
                        n += 1
                        if n % 10 == 0 {
                            let name = "added \(client)-\(n)"
                            let reply = try await HTTP.postForm(
                                base.appendingPathComponent("items"), [("name", name), ("valueInDollars", "\(n)")])
                            if reply.status == 303 { acknowledged.added.append(name) }
                        } else {
                            let name = "client \(client) edit \(n)"
                            let reply = try await HTTP.postForm(
                                base.appendingPathComponent("items/\(keys[client])"),
                                [("name", name), ("serialNumber", "S\(n)"), ("valueInDollars", "\(n)")])
                            if reply.status == 303 {
                                acknowledged.lastValue = n
                                acknowledged.lastName = name
                            }
                        }
                        acknowledged.requests += 1
                    }
                    return acknowledged
                }
            }
            var all: [Acknowledged] = []
            for try await result in group { all.append(result) }
            return all
        }
        let total = results.reduce(0) { $0 + $1.requests }
        #expect(total >= clients * 5, "the load test made too few requests (\(total)) to mean anything")

        #expect(try server.terminate() == 0)
        server = try ServerProcess(containers: containers)
        let after = try await HTTP.items(server.baseURL)
        let byKey = Dictionary(uniqueKeysWithValues: after.map { ($0.itemKey, $0) })
        let names = Set(after.map(\.name))
        for (client, key) in keys.enumerated() {
            let item = try #require(byKey[key])
            let acked = try #require(results.first { $0.client == client })
            #expect(item.name == acked.lastName, "client \(client)'s last acknowledged edit was lost")
            #expect(item.valueInDollars == acked.lastValue)
        }
        for added in results.flatMap(\.added) { #expect(names.contains(added), "acknowledged add \(added) was lost") }
        #expect(after.count == clients + results.reduce(0) { $0 + $1.added.count })
        #expect(try server.terminate() == 0)
    }

    @Test("SIGTERM at a random moment under 6 concurrent writers, ten times: every acknowledged item survives")
    func sigtermUnderLoadLosesNoAcknowledgedItem() async throws {
        let writers = 6
        var generator = SystemRandomNumberGenerator()
        for round in 0..<10 {
            let scratch = TemporaryDirectory("homepwner-sigterm-\(round)")
            defer { scratch.remove() }
            let containers = scratch.url
            var server = try ServerProcess(containers: containers)
            let base = server.baseURL
            let child = server.child
            let stopAfter = Duration.milliseconds(Int.random(in: 50...600, using: &generator))
            let acknowledged = try await withThrowingTaskGroup(of: [String].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var names: [String] = []
                        // Bounded: the server stops long before this many requests.
                        for n in 0..<5_000 {
                            let name = "w\(writer)-\(n)"
                            guard
                                let reply = try? await HTTP.postForm(
                                    base.appendingPathComponent("items"), [("name", name)])
                            else { break }
                            if reply.status == 303 { names.append(name) } else if reply.status >= 500 { break }
                        }
                        return names
                    }
                }
                group.addTask {
                    try await Task.sleep(for: stopAfter)
                    child.signal(SIGTERM)
                    return []
                }
                var all: [String] = []
                for try await names in group { all += names }
                return all
            }
            #expect(try server.terminate() == 0, "round \(round)")
            server = try ServerProcess(containers: containers)
            let saved = Set(try await HTTP.items(server.baseURL).map(\.name))
            let lost = acknowledged.filter { !saved.contains($0) }
            #expect(
                lost.isEmpty,
                "round \(round), SIGTERM after \(stopAfter): \(lost.count) of \(acknowledged.count) acknowledged items lost"
            )
            #expect(try server.terminate() == 0)
        }
    }
}
