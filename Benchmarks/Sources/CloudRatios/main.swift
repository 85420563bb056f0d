import AppSandbox
import AppStores
import BenchmarkData
import Dispatch
import Foundation
import KeepsakeCloud
import KeyedArchive
import Locking
import Logging
import PostgresNIO
import PropertyList

// The cloud stores on a PostgreSQL server on loopback, in one run: how long a change on
// one replica takes to be posted on another (against a bare NOTIFY through the same
// client, the floor), key-value writes per second with 1 and 4 writers (pgbench's
// one-row transactions on the same server are in the script's output beside them),
// and the shared item store's save and load of 1k and 10k items against the file
// backend.
// Usage: scripts/cloud-benchmark.sh (starts a throwaway server, runs this and pgbench).
// `CloudRatios URL --items N` only saves N new items, saves one edit and loads them
// once, for counting instructions (scripts/cloud-benchmark.sh runs it under callgrind);
// `CloudRatios URL --local-writes` only measures durable writes on one replica.

guard CommandLine.arguments.count > 1 else {
    print("usage: CloudRatios postgres://USER@127.0.0.1:PORT/DB [--items N]")
    exit(2)
}
let url = CommandLine.arguments[1]
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cloud-ratios-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: scratch) }
let run = UUID().uuidString.prefix(8)
// The process's one client, as in an app; each replica below stands for a device.
let database = try CloudDatabase(url: url)
let databaseClient = Task { try await database.run() }

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
    let syncing = Task { await replica.run(with: PostgresKeyValueSync(database: database, store: store)) }
    defer { syncing.cancel() }
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
            // Both replicas listening before the first sample. Not a test: a late LISTEN
            // would show as one slow sample, which the percentiles report.
            try await Task.sleep(for: .seconds(1))
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
                    // Bounded, so that a server that stops taking changes ends the run
                    // instead of hanging it.
                    let deadline = ContinuousClock.now + .seconds(60)
                    while replica.outbox.pendingChanges > 0 {
                        guard ContinuousClock.now < deadline else {
                            fatalError(
                                "writer \(writer): \(replica.outbox.pendingChanges) changes still pending after 60 s")
                        }
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

/// Durable `setValue` calls per second on one replica's store from `threads` threads
/// at once, with no database: changes made at once share one `fsync` (group commit).
func localWritesPerSecond(threads: Int, count: Int) throws -> Double {
    let container = try AppContainer(
        identifier: "org.keepsake.bench", containersDirectory: scratch.appendingPathComponent("local-\(threads)"))
    try container.createDirectories()
    let store = try UbiquitousKeyValueStore(container: container, notificationCenter: NotificationCenter())
    let failures = Locked(0)
    let start = ContinuousClock.now
    // A thread per writer, as pgbench has a connection per client: concurrentPerform
    // would run no more writers at once than there are cores.
    let finished = DispatchGroup()
    for thread in 0..<threads {
        finished.enter()
        Thread {
            for index in 0..<count {
                do {
                    try store.setValue(.integer(Int64(index)), forKey: "t\(thread)-\(index % 200)")
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
            finished.leave()
        }.start()
    }
    finished.wait()
    precondition(failures.withLock { $0 } == 0, "a durable write failed")
    return Double(threads * count) / (milliseconds(ContinuousClock.now - start) / 1000)
}

/// The median time of a durable `set` once `history` changes were made to 3 keys, and
/// the bytes of the store's file and journal then, against the bytes of the live values.
func setCost(afterChanges history: Int) throws -> (median: Double, fileBytes: Int, liveBytes: Int) {
    let container = try AppContainer(
        identifier: "org.keepsake.bench", containersDirectory: scratch.appendingPathComponent("history-\(history)"))
    try container.createDirectories()
    let store = try UbiquitousKeyValueStore(container: container, notificationCenter: NotificationCenter())
    for index in 0..<history { try store.setValue(.integer(Int64(index)), forKey: "k\(index % 3)") }
    var samples: [Double] = []
    for index in 0..<200 {
        let start = ContinuousClock.now
        try store.setValue(.integer(Int64(index)), forKey: "k\(index % 3)")
        samples.append(milliseconds(ContinuousClock.now - start))
    }
    let preferences = container.directory(.preferences)
    let fileBytes = try preferences.contentsOfDirectory().filter { $0.contains("ubiquitous-kvs") }.reduce(0) {
        $0 + (try preferences.contents(of: $1)).count
    }
    let liveBytes = store.values.reduce(0) { $0 + $1.key.utf8.count + KeyValueSizes.size(of: $1.value) }
    return (percentile(samples, 0.5), fileBytes, liveBytes)
}

/// A value's size as the limits count it: its binary plist.
enum KeyValueSizes {
    static func size(of value: PropertyListValue) -> Int { (try? PropertyListWriter.binary.write(value).count) ?? 0 }
}

// MARK: Item store

struct SharedItem: KeyedSecureCoding, Identifiable {
    static var supportsSecureCoding: Bool { true }
    var item: StoreItem
    var id: String { item.itemKey }
    init(_ item: StoreItem) { self.item = item }
    func encode(with aCoder: KeyedEncoder) { item.encode(with: aCoder) }
    init(coder aDecoder: KeyedDecoder) throws { item = try StoreItem(coder: aDecoder) }
    static var archiveClassName: String { "Homepwner.Item" }
}

func itemStoreRows(count: Int, runs: Int) async throws -> [String] {
    let items = HomepwnerModels.records(count: count).map { SharedItem(StoreItem($0)) }
    let container = try AppContainer(identifier: "org.keepsake.bench.items", containersDirectory: scratch)
    try container.createDirectories()
    let file = ArchiveFileBackend<SharedItem>(container: container, fileName: "items-\(count).archive")
    let fileSave = try bestOf(runs) { try file.saveItems(items) }
    let fileLoad = try bestOf(runs) { _ = try file.loadItems() }

    var sharedSave = Double.infinity
    var sharedEdit = Double.infinity
    var sharedLoad = Double.infinity
    let clock = ContinuousClock()
    for attempt in 0..<runs {
        let store = "bench.items.\(count).\(attempt).\(run)"
        let backend = PostgresItemStoreBackend<SharedItem>(database: database, store: store)
        var items = items
        var start = clock.now
        try await backend.save(items)
        sharedSave = min(sharedSave, milliseconds(clock.now - start))
        items[count / 2].item.name = "Edited \(attempt)"
        start = clock.now
        try await backend.save(items)
        sharedEdit = min(sharedEdit, milliseconds(clock.now - start))
        let reader = PostgresItemStoreBackend<SharedItem>(database: database, store: store)
        start = clock.now
        let loaded = try await reader.load()
        sharedLoad = min(sharedLoad, milliseconds(clock.now - start))
        precondition(loaded.count == count)
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
func itemStoreOnce(count: Int) async throws {
    var items = HomepwnerModels.records(count: count).map { SharedItem(StoreItem($0)) }
    let store = "bench.items.once.\(count).\(run)"
    let backend = PostgresItemStoreBackend<SharedItem>(database: database, store: store)
    try await backend.save(items)
    items[count / 2].item.name = "Edited"
    try await backend.save(items)
    let loaded = try await PostgresItemStoreBackend<SharedItem>(database: database, store: store).load()
    precondition(loaded.count == count)
}

if CommandLine.arguments.count == 3, CommandLine.arguments[2] == "--local-writes" {
    for threads in [1, 4] { print(threads, try localWritesPerSecond(threads: threads, count: 2_000)) }
    exit(0)
}

if CommandLine.arguments.count == 4, CommandLine.arguments[2] == "--items", let count = Int(CommandLine.arguments[3]) {
    try await itemStoreOnce(count: count)
    exit(0)
}

// MARK: Report

let latencies = try await notificationLatencies(samples: 300)
let floor = try await bareNotifyLatencies(samples: 300)
print("\n## Change to notification, two replicas on loopback (300 changes)\n")
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
print("\n## Key-value cost as the history grows (one replica, no database; 200 sets after the history)\n")
print("| changes before | median set | file + journal | live values |")
print("|--:|--:|--:|--:|")
for history in [100, 20_000] {
    let cost = try setCost(afterChanges: history)
    print(
        "| \(history) | \(String(format: "%.3f", cost.median)) ms | \(cost.fileBytes) bytes | \(cost.liveBytes) bytes |"
    )
}
print("\n## Durable key-value writes per second on one replica, no database (group commit)\n")
print("| threads | writes/s |")
print("|--:|--:|")
for threads in [1, 4] {
    print("| \(threads) | \(String(format: "%.0f", try localWritesPerSecond(threads: threads, count: 2_000))) |")
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
    for line in try await itemStoreRows(count: count, runs: 3) { print(line) }
}
