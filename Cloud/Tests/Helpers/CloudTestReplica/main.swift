// One replica of a ubiquitous store, as a process of its own, for the convergence test:
//
//   CloudTestReplica CONTAINERS REPLICA STORE DATABASE_URL CHANGES SEED SKEW_MS OFFLINE_FROM OFFLINE_TO
//
// Makes CHANGES random changes (keys from a pool of 1,500, so that the 1,024-key limit
// decides; one in ten removes its key), pushing and pulling after every 50 except while
// "offline" (changes OFFLINE_FROM..<OFFLINE_TO), with its wall clock moved by SKEW_MS.
// Then syncs until the service takes everything, and prints `accepted N`, the changes
// the store acknowledged, and `keys K1 K2 …`, the keys they changed: the log must hold
// the latest change of each (a change replaced before it was pushed need never be).

import AppSandbox
import Foundation
import KeepsakeCloud
import PropertyList
import TestSupport

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 9, let changes = Int(arguments[4]), let seed = UInt64(arguments[5]),
    let skew = Int64(arguments[6]), let offlineFrom = Int(arguments[7]), let offlineTo = Int(arguments[8])
else {
    FileHandle.standardError.write(Data("usage: see the comment at the top of main.swift\n".utf8))
    exit(2)
}
let container = try AppContainer(
    identifier: "org.keepsake.replica-\(arguments[1])",
    containersDirectory: URL(fileURLWithPath: arguments[0], isDirectory: true))
let store = try UbiquitousKeyValueStore(
    container: container, replica: arguments[1], notificationCenter: NotificationCenter(),
    physicalTime: { HybridLogicalClock.wallClock() + skew })
let database = try CloudDatabase(url: arguments[3])
let client = Task { try await database.run() }
let service = PostgresKeyValueSync(database: database, store: arguments[2])

/// Whether the store took the change: one the limits refuse is made nowhere.
func take(_ value: PropertyListValue?, forKey key: String) throws -> Bool {
    do {
        try store.setValue(value, forKey: key)
        return true
    } catch  where error.code == .quotaViolation {
        return false
    }
}

var generator = SplitMix64(seed: seed)
var accepted = 0
var acceptedKeys: Set<String> = []
for index in 0..<changes {
    let key = "key-\(Int.random(in: 0..<1_500, using: &generator))"
    let value: PropertyListValue? =
        Int.random(in: 0..<10, using: &generator) == 0
        ? nil : .string(String(repeating: "v", count: Int.random(in: 1..<400, using: &generator)))
    if try take(value, forKey: key) {
        accepted += 1
        acceptedKeys.insert(key)
    }
    let offline = (offlineFrom..<offlineTo).contains(index)
    if !offline, index % 50 == 49 { try? await store.sync(with: service) }
}
var synced = false
for _ in 0..<100 where !synced {
    do {
        try await store.sync(with: service)
        synced = true
    } catch {
        try await Task.sleep(for: .milliseconds(100))
    }
}
client.cancel()
print("accepted \(accepted)")
print("keys " + acceptedKeys.sorted().joined(separator: " "))
exit(synced ? 0 : 1)
