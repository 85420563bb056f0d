import AppSandbox
import Foundation
import Locking
import PropertyList
import Testing

@testable import KeepsakeCloud

/// The store on its own, with no service: Apple's API, its limits, and the file that
/// keeps values and queued changes across launches.
@Suite struct UbiquitousKeyValueStoreTests {
    @Test func valuesPersistAcrossLaunchesWithTheirQueuedChanges() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.kvs")
        defer { try? container.destroy() }
        do {
            let store = try UbiquitousKeyValueStore(container: container, notificationCenter: NotificationCenter())
            store.set("cents", forKey: "currencyFormat")
            store.set(3, forKey: "rows")
            store.set(true, forKey: "showSerials")
            store.set(["a", "b"], forKey: "recent")
            store.set(["k": 1], forKey: "nested")
            store.set(Data([1, 2, 3]), forKey: "blob")
            store.set(2.5, forKey: "ratio")
            store.removeObject(forKey: "rows")
        }
        let again = try UbiquitousKeyValueStore(container: container, notificationCenter: NotificationCenter())
        #expect(again.string(forKey: "currencyFormat") == "cents")
        #expect(again.object(forKey: "rows") == nil)
        #expect(again.longLong(forKey: "rows") == 0)
        #expect(again.bool(forKey: "showSerials"))
        #expect(again.array(forKey: "recent") as? [String] == ["a", "b"])
        #expect(again.dictionary(forKey: "nested")?["k"] as? Int == 1)
        #expect(again.data(forKey: "blob") == Data([1, 2, 3]))
        #expect(again.double(forKey: "ratio") == 2.5)
        #expect(again.dictionaryRepresentation.count == 6)
        // "rows" was set, then removed: only the removal is still to push.
        #expect(again.outbox.pendingChanges == 7, "every change stays queued until a service takes it")
    }

    @Test("A 1,025th key, a value of 1 MB + 1 and a 65-byte key are refused whole, posted with reason 2")
    func quotaViolationsAreRefusedWhole() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.kvs-quota")
        defer { try? container.destroy() }
        let center = NotificationCenter()
        let store = try UbiquitousKeyValueStore(container: container, notificationCenter: center)
        let posted = Locked<[(Int, [String])]>([])
        let token = center.addObserver(
            forName: UbiquitousKeyValueStore.didChangeExternallyNotification, object: store, queue: nil
        ) { note in
            let reason = note.userInfo?[UbiquitousKeyValueStore.changeReasonKey] as? Int ?? -1
            let keys = note.userInfo?[UbiquitousKeyValueStore.changedKeysKey] as? [String] ?? []
            posted.withLock { $0.append((reason, keys)) }
        }
        defer { center.removeObserver(token) }
        for index in 0..<1_024 { try store.setValue(.integer(Int64(index)), forKey: "k\(index)") }
        let full = store.values
        let preferences = container.directory(.preferences)
        let files = [
            "org.keepsake.kvs-quota.ubiquitous-kvs.plist", "org.keepsake.kvs-quota.ubiquitous-kvs.plist.journal",
        ]
        let before = try files.map { try preferences.contents(of: $0) }

        let refused: [(String, PropertyListValue)] = [
            ("k1024", .integer(1)),
            ("k0", .data(Data(count: 1 << 20))),
            (String(repeating: "x", count: 65), .integer(1)),
        ]
        for (key, value) in refused {
            let error = #expect(throws: UbiquitousStoreError.self) { try store.setValue(value, forKey: key) }
            #expect(error?.code == .quotaViolation)
            store.set(value.bridgedObject, forKey: key)
        }
        #expect(store.values == full, "a refused change changes nothing")
        #expect(try files.map { try preferences.contents(of: $0) } == before, "a refused change touches no file")
        let notes = posted.withLock { $0 }
        #expect(notes.count == 6)
        #expect(notes.allSatisfy { $0.0 == UbiquitousKeyValueStore.ChangeReason.quotaViolationChange.rawValue })
        #expect(notes.map(\.1) == refused.flatMap { [[$0.0], [$0.0]] })
        // Replacing a key's value, or removing one, is still possible at the limit.
        try store.setValue(.string("replaced"), forKey: "k0")
        try store.setValue(nil, forKey: "k1")
        try store.setValue(.integer(1), forKey: "k1024")
    }

    @Test func aDamagedFileIsReportedAndKept() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.kvs-damaged")
        defer { try? container.destroy() }
        let directory = container.directory(.preferences)
        try directory.create()
        let damaged = Data("not a plist".utf8)
        try directory.write(damaged, to: "org.keepsake.kvs-damaged.ubiquitous-kvs.plist")
        let error = #expect(throws: UbiquitousStoreError.self) {
            try UbiquitousKeyValueStore(container: container, notificationCenter: NotificationCenter())
        }
        #expect(error?.code == .storageFailed)
        #expect(try directory.contents(of: "org.keepsake.kvs-damaged.ubiquitous-kvs.plist") == damaged)
    }

    /// Timestamps are unique (a replica never stamps two changes alike), so the order
    /// is total.
    @Test("Replaying changes gives the same values in any order, limits included")
    func replayIsOrderIndependent() {
        var limits = UbiquitousStoreLimits()
        limits.maxKeys = 5
        var generator = SystemRandomNumberGenerator()
        let changes = (0..<200).map { index in
            KeyValueChange(
                key: "k\(Int.random(in: 0..<9, using: &generator))",
                value: index.isMultiple(of: 7) ? nil : .integer(Int64(index)),
                timestamp: HybridTimestamp(
                    milliseconds: Int64.random(in: 0..<50, using: &generator), counter: Int64(index),
                    replica: "r\(index % 4)"))
        }
        let reference = KeyValueReplay.replaying(changes, limits: limits).entries
        #expect(reference.count <= 5)
        for _ in 0..<20 {
            #expect(KeyValueReplay.replaying(changes.shuffled(), limits: limits).entries == reference)
        }
    }
}
