import Foundation
import Locking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The built server killed with SIGKILL right after it acknowledged a change: every
/// change it acknowledged must be there after the restart.
@Suite(
    "Crash recovery", .serialized,
    .enabled(if: ServerProcess.executable != nil, "the homepwner executable is not built"))
struct CrashRecoveryTests: ContainersOfItsOwn {
    let scratch = TemporaryDirectory("homepwner-tests")

    /// What the server acknowledged, across rounds.
    final class Acknowledged: Sendable {
        struct State {
            /// Names of acknowledged creates, less those whose item an acknowledged delete removed.
            var names: Set<String> = []
            var deletedKeys: Set<String> = []
            var count = 0
        }
        let state = Locked(State())

        func created(_ name: String) -> Int {
            state.withLock {
                $0.names.insert(name)
                $0.count += 1
                return $0.count
            }
        }

        func deleted(_ item: HTTP.ItemRow) {
            state.withLock {
                $0.names.remove(item.name)
                $0.deletedKeys.insert(item.itemKey)
            }
        }
    }

    /// A session with room for 50 clients at once; redirects are not followed.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 15
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration, delegate: HTTP.NoRedirects(), delegateQueue: nil)
    }()

    static func post(_ url: URL, _ form: String) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(form.utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await session.data(for: request)
        return (response as! HTTPURLResponse).statusCode
    }

    @Test(
        "kill -9 right after an acknowledgement, 20 rounds of sequential creates and deletes or 50 concurrent clients: nothing acknowledged is lost or undone"
    )
    func killAfterAcknowledgementLosesNothing() async throws {
        let acknowledged = Acknowledged()
        try await Self.killRounds(20, seed: 27, acknowledged: acknowledged) {
            try ServerProcess(containers: containers)
        }
        let server = try ServerProcess(containers: containers)
        try await Self.check(server, against: acknowledged, after: "the last round")
        #expect(try server.terminate() == 0)
        #expect(acknowledged.state.withLock { $0.count } > 20 * 50, "too few acknowledgements to mean anything")
    }

    @Test(
        "kill -9 right after a photo upload or removal is acknowledged, 12 rounds: every acknowledged photo is served whole, and no removed one comes back"
    )
    func killAfterAPhotoAcknowledgementLosesNothing() async throws {
        var random = SplitMix64(seed: 41)
        /// Each item's acknowledged photo; `nil` once its removal was acknowledged.
        var photos: [String: Data?] = [:]
        for round in 0..<12 {
            let server = try ServerProcess(containers: containers)
            try await Self.checkPhotos(server, photos, after: "round \(round)")
            let items = server.baseURL.appendingPathComponent("items")
            #expect(try await Self.post(items, "name=photo-round-\(round)") == 303)
            let keys = try await HTTP.items(server.baseURL).map(\.itemKey)
            let killAfter = Int(random.next() % 20) + 1
            for index in 0..<killAfter {
                let key = keys[Int(random.next() % UInt64(keys.count))]
                let photo = items.appendingPathComponent("\(key)/photo")
                if index % 4 == 3 {
                    let reply = try await HTTP.send("DELETE", photo)
                    #expect(reply.status == 204)
                    if reply.status == 204 { photos[key] = .some(nil) }
                } else {
                    let size = Int(random.next() % 300_000)
                    let bytes =
                        RealImages.png + Data("\(round)-\(index)".utf8) + Data(repeating: UInt8(index), count: size)
                    let reply = try await HTTP.send("POST", photo, body: bytes, contentType: "image/png")
                    #expect(reply.status == 303)
                    if reply.status == 303 { photos[key] = bytes }
                }
            }
            server.child.signal(SIGKILL)
            try server.child.waitForExit()
        }
        let server = try ServerProcess(containers: containers)
        try await Self.checkPhotos(server, photos, after: "the last round")
        #expect(try server.terminate() == 0)
        #expect(photos.values.contains { $0 != nil } && photos.values.contains { $0 == nil }, "uploads and removals")
    }

    /// Each photo acknowledged last is served, byte for byte; each removed one is gone.
    static func checkPhotos(_ server: ServerProcess, _ photos: [String: Data?], after what: String) async throws {
        for (key, expected) in photos {
            let reply = try await HTTP.send("GET", server.baseURL.appendingPathComponent("items/\(key)/photo"))
            if let expected {
                #expect(
                    reply.status == 200 && reply.body == expected,
                    "after \(what), item \(key)'s photo is not the last acknowledged")
            } else {
                #expect(reply.status == 404, "after \(what), item \(key)'s removed photo came back")
            }
        }
    }

    /// `rounds` rounds, each on a server `start` makes: checks that it holds what was
    /// acknowledged before, then kills it with `SIGKILL` after 1 to 300 (from `seed`)
    /// acknowledged creates and deletes, one client at a time in even rounds and 50 at
    /// once in odd ones.
    static func killRounds(
        _ rounds: Int, seed: UInt64, acknowledged: Acknowledged, start: () throws -> ServerProcess
    ) async throws {
        var random = SplitMix64(seed: seed)
        for round in 0..<rounds {
            let server = try start()
            try await check(server, against: acknowledged, after: "round \(round)")
            let killAfter = Int(random.next() % 300) + 1
            if round.isMultiple(of: 2) {
                try await sequential(round, server, acknowledged, killAfter: killAfter)
            } else {
                try await concurrent(round, server, acknowledged, killAfter: killAfter)
            }
        }
    }

    /// Every acknowledged create is listed, and no acknowledged delete's item is.
    static func check(_ server: ServerProcess, against acknowledged: Acknowledged, after what: String) async throws {
        let items = try await HTTP.items(server.baseURL)
        let names = Set(items.map(\.name))
        let keys = Set(items.map(\.itemKey))
        let (expected, deleted) = acknowledged.state.withLock { ($0.names, $0.deletedKeys) }
        let lost = expected.subtracting(names)
        let undone = deleted.intersection(keys)
        #expect(lost.isEmpty, "after \(what), \(lost.count) acknowledged creates are gone: \(lost.sorted().prefix(5))")
        #expect(undone.isEmpty, "after \(what), \(undone.count) acknowledged deletes were undone")
    }

    /// Creates, with every fifth operation a delete of an item listed at the start,
    /// one at a time; right after the `killAfter`-th acknowledgement the next request
    /// is sent and the server killed while it handles it.
    static func sequential(_ round: Int, _ server: ServerProcess, _ acknowledged: Acknowledged, killAfter: Int)
        async throws
    {
        var deletable = try await HTTP.items(server.baseURL)
        let items = server.baseURL.appendingPathComponent("items")
        for index in 0..<300 {
            if index % 5 == 4, let item = deletable.popLast() {
                let status = try await post(items.appendingPathComponent("\(item.itemKey)/delete"), "")
                #expect(status == 303)
                if status == 303 { acknowledged.deleted(item) }
            } else {
                let name = "r\(round)-s\(index)"
                let status = try await post(items, "name=\(name)&valueInDollars=\(index)")
                #expect(status == 303)
                if status == 303 { _ = acknowledged.created(name) }
            }
            if index + 1 == killAfter { break }
        }
        let inFlight = Task { try? await post(items, "name=r\(round)-unacknowledged") }
        server.child.signal(SIGKILL)
        try server.child.waitForExit()
        _ = await inFlight.value
    }

    /// 50 clients creating items at once; the one that brings the acknowledgements of
    /// the round to `killAfter` kills the server. Every 303 that arrives counts, even
    /// one read after the kill: the server sent it.
    static func concurrent(_ round: Int, _ server: ServerProcess, _ acknowledged: Acknowledged, killAfter: Int)
        async throws
    {
        let items = server.baseURL.appendingPathComponent("items")
        let roundCount = Acknowledged()
        let child = server.child
        await withTaskGroup(of: Void.self) { group in
            for client in 0..<50 {
                group.addTask {
                    for index in 0..<100 {
                        let name = "r\(round)-c\(client)-\(index)"
                        guard let status = try? await post(items, "name=\(name)"), status == 303 else { return }
                        _ = acknowledged.created(name)
                        if roundCount.created(name) == killAfter { child.signal(SIGKILL) }
                    }
                }
            }
        }
        child.signal(SIGKILL)
        try child.waitForExit()
    }
}
