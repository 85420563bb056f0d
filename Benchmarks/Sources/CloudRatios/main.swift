import AppSandbox
import AppStores
import BenchmarkData
import Foundation
import KeepsakeCloud
import KeyedArchive
import Logging
import PostgresNIO
import PropertyList
import Synchronization

// The cloud stores on a PostgreSQL server on loopback, in one run: how long a change on
// one replica takes to be posted on another (against a bare NOTIFY through the same
// client, the floor), key-value writes per second with 1 and 4 writers (pgbench's
// one-row transactions on the same server are in the script's output beside them),
// and the shared item store's save and load of 1k and 10k items against the file
// backend.
// Usage: scripts/cloud-benchmark.sh (starts a throwaway server, runs this and pgbench).
// `CloudRatios URL --items N` only saves N new items, saves one edit and loads them
// once, for counting instructions (scripts/cloud-benchmark.sh runs it under callgrind).

guard CommandLine.arguments.count > 1 else {
    print("usage: CloudRatios postgres://USER@127.0.0.1:PORT/DB [--items N]")
    exit(2)
}
let url = CommandLine.arguments[1]
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cloud-ratios-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: scratch) }
let run = UUID().uuidString.prefix(8)

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func percentile(_ samples: [Double], _ fraction: Double) -> Double {
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
}

/// A replica of `store` in a container of its own, synchronising while `body` runs.
func withReplica<Result>(
    _ name: String, store: String, _ body: (UbiquitousKeyValueStore) async throws -> Result
) async throws -> Result {
    let container = try AppContainer(
        identifier: "org.keepsake.bench", containersDirectory: scratch.appendingPathComponent(name))
    try container.createDirectories()
    let replica = try UbiquitousKeyValueStore(container: container, notificationCenter: NotificationCenter())
    let service = try PostgresKeyValueSync(url: url, store: store)
    let tasks = [Task { await service.run() }, Task { await replica.run(with: service) }]
    defer { for task in tasks { task.cancel() } }
    return try await body(replica)
}

// MARK: Change to notification

/// Times from `set` on one replica to the other's didChangeExternally notification.
func notificationLatencies(samples: Int) async throws -> [Double] {
    let store = "bench.latency.\(run)"
    return try await withReplica("writer", store: store) { writer in
        try await withReplica("reader", store: store) { reader in
            let arrived = AsyncStream<String>.makeStream()
            let observer = reader.notificationCenter.addObserver(
                forName: UbiquitousKeyValueStore.didChangeExternallyNotification, object: reader, queue: nil
            ) { note in
                for key in note.userInfo?[UbiquitousKeyValueStore.changedKeysKey] as? [String] ?? [] {
                    arrived.continuation.yield(key)
                }
            }
            defer { reader.notificationCenter.removeObserver(observer) }
            try await Task.sleep(for: .seconds(1))  // both listening
            var iterator = arrived.stream.makeAsyncIterator()
            var latencies: [Double] = []
            for sample in 0..<samples {
                let key = "key\(sample)"
                let start = ContinuousClock.now
                writer.set(sample, forKey: key)
                while let posted = await iterator.next(), posted != key {}
                latencies.append(milliseconds(ContinuousClock.now - start))
            }
            return latencies
        }
    }
}

/// Times from NOTIFY on one connection to its delivery on another's LISTEN: the floor.
func bareNotifyLatencies(samples: Int) async throws -> [Double] {
    guard let configuration = PostgresClient.Configuration(url: url) else { fatalError("bad URL") }
    let client = PostgresClient(configuration: configuration)
    let running = Task { await client.run() }
    defer { running.cancel() }
    let channel = "bench_\(run.lowercased())"
    let (payloads, delivered) = AsyncStream<String>.makeStream()
    let (ready, listening) = AsyncStream<Void>.makeStream()
    let listener = Task {
        try await client.withConnection { connection in
            try await connection.listen(on: channel) { notifications in
                listening.yield()
                for try await notification in notifications { delivered.yield(notification.payload) }
            }
        }
    }
    defer { listener.cancel() }
    var readiness = ready.makeAsyncIterator()
    _ = await readiness.next()
    var iterator = payloads.makeAsyncIterator()
    var latencies: [Double] = []
    for sample in 0..<samples {
        let start = ContinuousClock.now
        try await client.query("SELECT pg_notify(\(channel), \(String(sample)))")
        while let payload = await iterator.next(), payload != String(sample) {}
        latencies.append(milliseconds(ContinuousClock.now - start))
    }
    return latencies
}

// MARK: Writes per second

/// `writers` replicas each setting `count` keys as fast as they can; the writes per
/// second until every change is in the database.
func writesPerSecond(writers: Int, count: Int) async throws -> Double {
    let store = "bench.writes.\(writers).\(run)"
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for writer in 0..<writers {
            group.addTask {
                try await withReplica("writer-\(writers)-\(writer)", store: store) { replica in
                    for index in 0..<count { replica.set(index, forKey: "w\(writer)-\(index % 200)") }
                    while replica.pendingChangeCount > 0 {
                        replica.synchronize()
                        try await Task.sleep(for: .milliseconds(2))
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    return Double(writers * count) / (milliseconds(ContinuousClock.now - start) / 1000)
}

// MARK: Item store

struct SharedItem: KeyedCoding, Identifiable {
    var item: StoreItem
    var id: String { item.itemKey }
    init(_ item: StoreItem) { self.item = item }
    func encode(with aCoder: KeyedEncoder) { item.encode(with: aCoder) }
    init(coder aDecoder: KeyedDecoder) throws { item = try StoreItem(coder: aDecoder) }
    static var archiveClassName: String { "Homepwner.Item" }
}

@MainActor
func itemStoreRows(count: Int, runs: Int) throws -> [String] {
    let items = HomepwnerModels.records(count: count).map { SharedItem(StoreItem($0)) }
    let container = try AppContainer(identifier: "org.keepsake.bench.items", containersDirectory: scratch)
    try container.createDirectories()
    let file = ArchiveFileBackend<SharedItem>(container: container, fileName: "items-\(count).archive")
    let fileSave = try bestOf(runs) { try file.saveItems(items) }
    let fileLoad = try bestOf(runs) { _ = try file.loadItems() }

    var sharedSave = Double.infinity
    var sharedEdit = Double.infinity
    var sharedLoad = Double.infinity
    for attempt in 0..<runs {
        let store = "bench.items.\(count).\(attempt).\(run)"
        let backend = try PostgresItemStoreBackend<SharedItem>(url: url, store: store)
        let itemStore = try ItemStore(backend: backend)
        itemStore.replaceAll(with: items)
        sharedSave = min(sharedSave, try bestOf(1) { try itemStore.save() })
        itemStore.allItems[count / 2].item.name = "Edited \(attempt)"
        sharedEdit = min(sharedEdit, try bestOf(1) { try itemStore.save() })
        let reader = try PostgresItemStoreBackend<SharedItem>(url: url, store: store)
        sharedLoad = min(
            sharedLoad,
            try bestOf(1) {
                let loaded = try reader.loadItems()
                precondition(loaded.count == count)
            })
    }
    // What bounds the shared store: each item is an archive of its own.
    let archives = try items.map { try KeyedArchiver.archivedData(withRootObject: $0) }
    let archiveEach = try bestOf(runs) {
        for item in items { _ = try KeyedArchiver.archivedData(withRootObject: item) }
    }
    let decodeEach = try bestOf(runs) {
        for archive in archives { _ = try KeyedUnarchiver.unarchivedObject(ofClass: SharedItem.self, from: archive) }
    }
    func row(_ what: String, _ shared: Double, _ file: Double) -> String {
        "| \(what), \(count / 1000)k items | \(String(format: "%.1f", shared)) ms | \(String(format: "%.1f", file)) ms | \(String(format: "%.2f", shared / file))× |"
    }
    return [
        row("save, every item new", sharedSave, fileSave),
        row("save after editing one item", sharedEdit, fileSave),
        row("load", sharedLoad, fileLoad),
        "| of which: archiving each item alone, \(count / 1000)k | \(String(format: "%.1f", archiveEach)) ms | | |",
        "| of which: unarchiving each item alone, \(count / 1000)k | \(String(format: "%.1f", decodeEach)) ms | | |",
    ]
}

/// One save of `count` new items, one save after an edit, one load in a new backend.
@MainActor
func itemStoreOnce(count: Int) throws {
    let items = HomepwnerModels.records(count: count).map { SharedItem(StoreItem($0)) }
    let store = "bench.items.once.\(count).\(run)"
    let itemStore = try ItemStore(backend: try PostgresItemStoreBackend<SharedItem>(url: url, store: store))
    itemStore.replaceAll(with: items)
    try itemStore.save()
    itemStore.allItems[count / 2].item.name = "Edited"
    try itemStore.save()
    let loaded = try PostgresItemStoreBackend<SharedItem>(url: url, store: store).loadItems()
    precondition(loaded.count == count)
}

if CommandLine.arguments.count == 4, CommandLine.arguments[2] == "--items", let count = Int(CommandLine.arguments[3]) {
    try await MainActor.run { try itemStoreOnce(count: count) }
    exit(0)
}

// MARK: Report

let latencies = try await notificationLatencies(samples: 300)
let floor = try await bareNotifyLatencies(samples: 300)
print("## Change to notification, two replicas on loopback (300 changes)\n")
print("| | p50 | p99 | max |")
print("|:--|--:|--:|--:|")
for (name, samples) in [
    ("ubiquitous store: set → other replica's notification", latencies),
    ("bare NOTIFY → LISTEN, same client (floor)", floor),
] {
    print(
        "| \(name) | \(String(format: "%.2f", percentile(samples, 0.5))) ms | \(String(format: "%.2f", percentile(samples, 0.99))) ms | \(String(format: "%.2f", samples.max() ?? 0)) ms |"
    )
}
print("\n## Key-value writes per second (durable on the replica, then in PostgreSQL)\n")
print("| writers | writes/s |")
print("|--:|--:|")
for writers in [1, 4] {
    print("| \(writers) | \(String(format: "%.0f", try await writesPerSecond(writers: writers, count: 500))) |")
}
print("\n## Shared item store against the file backend (best of 3)\n")
print("| case | PostgreSQL | file | ratio |")
print("|:--|--:|--:|--:|")
for count in [1_000, 10_000] {
    for line in try await MainActor.run(body: { try itemStoreRows(count: count, runs: 3) }) { print(line) }
}
