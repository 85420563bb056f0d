#if Database
import AppRuntime
import AppSandbox
import AppStores
import Foundation
public import KeepsakeCloud
public import ServiceLifecycle

/// Homepwner on a database shared with other instances: the items pushed to a shared
/// item store, the photos beside them (``SharedPhotos``), the settings in the
/// ubiquitous key-value store, all on PostgreSQL.
///
/// The container stays the truth for this instance: every change is durable in the
/// item store's journal before it is acknowledged, as without a database, and the
/// journal is the outbox. Each change made here is then pushed, off the main actor;
/// each save made elsewhere is read as soon as PostgreSQL notifies it, so that the
/// pages, which poll ``Inventory/revision``, show it within a second. Items changed on
/// both sides are merged field by field, the later change winning
/// (``MergePolicy/fieldLastWriterWins``); every such conflict goes to the lifecycle log
/// with its three versions.
///
/// While the database is away, reads and changes go on from the container; a push
/// that fails is tried again a second later, and after a restart: what was last agreed
/// with the database is kept in `Library/Application Support/`, so that the changes
/// made meanwhile are pushed, and merged, as changes from it.
@MainActor
public final class SharedInventory {
    /// The process's one client of the database, which every store below shares; the
    /// server runs it as a service beside the HTTP server.
    public let database: CloudDatabase
    public let items: PostgresItemStoreBackend<Item>
    public let photos: SharedPhotos
    public let settings: UbiquitousKeyValueStore
    let settingsService: PostgresKeyValueSync
    let log: LifecycleLog
    private let support: SandboxDirectory
    private nonisolated static let agreementFile = "shared-items.agreement"
    /// A merge the last run kept before writing it to the container, done again (if
    /// the container lacks it) before the first exchange.
    private var interruptedMerge: AgreementFile?

    /// When a push last succeeded, why the last exchange failed, and how many items
    /// the last exchange found to push.
    private var pushes: (last: Date?, error: String?, pendingItems: Int?) = (nil, nil, nil)

    /// What waits to be pushed from `inventory`: the items as the last exchange counted
    /// them (a change wakes one at once; while the database is away, one runs every
    /// second), so that a page never archives every item on the main actor.
    public func outbox(of inventory: Inventory) -> Outbox {
        Outbox(
            pendingItems: pushes.pendingItems ?? inventory.allItems.count,
            pendingSettings: settings.outbox.pendingChanges, lastPush: pushes.last, lastError: pushes.error)
    }

    /// - Parameters:
    ///   - url: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
    ///   - name: what the instances share the inventory under; one database can hold
    ///     several inventories.
    ///   - tombstoneRetention: how long a deleted item's row and photo stay in the
    ///     database (``PostgresItemStoreBackend/tombstoneRetention``).
    /// - Throws: ``CloudDatabaseError`` (`.invalidURL`) for a URL it cannot use; ``UbiquitousStoreError``
    ///   for a settings file it cannot read.
    public init(
        url: String, name: String = HomepwnerServer.identifier, container: AppContainer, log: LifecycleLog,
        tombstoneRetention: Duration = .seconds(30 * 86_400)
    ) throws {
        self.log = log
        database = try CloudDatabase(url: url)
        items = PostgresItemStoreBackend<Item>(
            database: database, store: name, mergePolicy: .fieldLastWriterWins, tombstoneRetention: tombstoneRetention,
            onConflict: { conflict in
                let versions = try? conflict.versions(as: Item.self)
                func describe(_ item: Item?) -> String {
                    item.map { "\"\($0.name)\" $\($0.valueInDollars) \($0.serialNumber ?? "-")" } ?? "deleted"
                }
                log.record(
                    "Conflict on item \(conflict.recordID), merged field by field: ancestor \(describe(versions?.ancestor)), "
                        + "here \(describe(versions?.local)), saved elsewhere \(describe(versions?.server))")
            })
        try container.createDirectories()
        support = container.directory(.applicationSupport)
        if support.fileExists(Self.agreementFile) {
            do {
                let file = AgreementFile(try support.contents(of: Self.agreementFile))
                try items.restoreAgreement(file.agreement)
                interruptedMerge = file.merge.isEmpty ? nil : file
            } catch {
                // Pushed as changes from nothing: merged with what the database holds.
                log.record("What was last agreed with the database cannot be read, starting afresh: \(error)")
            }
        }
        photos = try SharedPhotos(blobs: PostgresBlobStore(database: database, store: name), container: container)
        settings = try UbiquitousKeyValueStore(container: container)
        settingsService = PostgresKeyValueSync(database: database, store: name)
    }

    /// ``run(_:)`` as a service, for a group that runs it after ``database`` and
    /// before the HTTP server: shut down in reverse, the server stops first, then this,
    /// then the client it used.
    public struct Sync: Service {
        let shared: SharedInventory
        let inventory: Inventory

        public func run() async throws {
            await cancelWhenGracefulShutdown { await shared.run(inventory) }
        }
    }

    /// The service keeping `inventory` in step with the database.
    public nonisolated func sync(_ inventory: Inventory) -> Sync { Sync(shared: self, inventory: inventory) }

    /// Keeps `inventory` in step with the database until the task is cancelled.
    public func run(_ inventory: Inventory) async {
        let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        inventory.onChange = { wake.yield() }
        inventory.onSettingsChange = { [settings] order, format, showSerialNumbers in
            settings.set(order.rawValue, forKey: SettingsKey.sortOrder)
            settings.set(format.rawValue, forKey: SettingsKey.currencyFormat)
            settings.set(showSerialNumbers, forKey: SettingsKey.showSerialNumbers)
        }
        inventory.outbox = { [weak self, weak inventory] in
            guard let self, let inventory else { return nil }
            return self.outbox(of: inventory)
        }
        let observation = NotificationCenter.default.addObserver(
            forName: UbiquitousKeyValueStore.didChangeExternallyNotification, object: settings, queue: nil
        ) { [settings] notification in
            let keys = notification.userInfo?[UbiquitousKeyValueStore.changedKeysKey] as? [String] ?? []
            let values = keys.filter(SettingsKey.all.contains).map {
                ($0, settings.string(forKey: $0), settings.bool(forKey: $0))
            }
            Task { @MainActor in
                guard !values.isEmpty else { return }
                for (key, text, flag) in values {
                    if key == SettingsKey.showSerialNumbers {
                        inventory.defaults.set(flag, forKey: key)
                    } else if let text {
                        inventory.defaults.set(text, forKey: key)
                    }
                }
                inventory.changedElsewhere()
            }
        }
        let items = items
        let settings = settings
        let service = settingsService
        let connections = Task.detached {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await settings.run(with: service) }
                group.addTask { await items.watch { wake.yield() } }
            }
        }
        wake.yield()
        await finishInterruptedMerge(of: inventory)
        // Ends when the task is cancelled, which ends the stream.
        await syncItems(of: inventory, wakeups: wakeups, wake: wake)
        connections.cancel()
        NotificationCenter.default.removeObserver(observation)
    }

    /// Does again the merge the last run kept but had not written to the container
    /// when it stopped (``AgreementFile``), so that its items are not pushed back as
    /// changes made here.
    private func finishInterruptedMerge(of inventory: Inventory) async {
        guard let merge = interruptedMerge else { return }
        interruptedMerge = nil
        do {
            if let redone = try merge.redo(on: inventory.allItems) {
                inventory.itemStore.replaceAll(with: redone)
                try await inventory.itemStore.flush()
                inventory.changedElsewhere()
                log.record("Finished writing the merge with the database that the last stop interrupted")
            }
            try await keepAgreement()
        } catch {
            log.record("Could not finish the merge the last stop interrupted: \(error)")
        }
    }

    /// Pushes the changes made here, then reads those made elsewhere, whenever either
    /// happens; after a failure, tries again a second later.
    private func syncItems(
        of inventory: Inventory, wakeups: AsyncStream<Void>, wake: AsyncStream<Void>.Continuation
    ) async {
        for await _ in wakeups {
            do {
                if try await exchange(inventory) { wake.yield() }
                if pushes.error != nil { log.record("Saving to the database works again") }
                pushes.error = nil
            } catch {
                if pushes.error == nil {
                    log.record("Could not sync the items with the database, trying again: \(error)")
                }
                pushes.error = "\(error)"
                Task {
                    try? await Task.sleep(for: .seconds(1))
                    wake.yield()
                }
            }
        }
    }

    /// One round: pushes what changed here since the last agreement, then takes in
    /// what changed elsewhere, keeping the changes made here meanwhile. Returns whether
    /// another round is needed for those.
    private func exchange(_ inventory: Inventory) async throws -> Bool {
        let local = inventory.allItems
        pushes.pendingItems = try await pendingChangeCount(in: local)
        if pushes.pendingItems != 0 {
            // Kept before the save as well, naming its changes: killed between the
            // save's commit and the agreement after it, the process would otherwise not
            // know the rows it wrote, and a delete made after the restart would never
            // reach the database.
            try await keepAgreement(offering: local)
            try await items.save(local)
            pushes.last = Date()
            pushes.pendingItems = 0
            try await keepAgreement()
        }
        if try await photos.refresh() { inventory.changedElsewhere() }
        var changedMeanwhile = false
        if try await items.refresh() {
            let merged = try await items.load()
            let current = inventory.allItems
            let result = current == local ? merged : Self.keeping(current, changedSince: local, over: merged)
            // The agreement, with the merge to do again if the process stops before the
            // container has it (see AgreementFile).
            try await keepAgreement(merging: current, into: result)
            // Changes made here while it was written are kept as changes made meanwhile.
            let now = inventory.allItems
            changedMeanwhile = now != local
            let final = now == current ? result : Self.keeping(now, changedSince: local, over: merged)
            if final != now {
                inventory.itemStore.replaceAll(with: final)
                try await inventory.itemStore.flush()
                inventory.changedElsewhere()
            }
            if result != current { try await keepAgreement() }
        }
        return changedMeanwhile
    }

    /// How many of `items` differ from what was last agreed, counted off the main
    /// actor: it archives every item.
    private func pendingChangeCount(in items: [Item]) async throws -> Int {
        let backend = self.items
        return try await Task.detached { try backend.pendingChangeCount(in: items) }.value
    }

    /// `merged`, with the items changed here while it was being read (`current` against
    /// `snapshot`) as they are here: added, edited or deleted.
    static func keeping(_ current: [Item], changedSince snapshot: [Item], over merged: [Item]) -> [Item] {
        let before = Dictionary(snapshot.map { ($0.itemKey, $0) }) { first, _ in first }
        let now = Dictionary(current.map { ($0.itemKey, $0) }) { first, _ in first }
        var result: [Item] = merged.compactMap { item in
            guard let previous = before[item.itemKey] else { return item }
            let latest = now[item.itemKey]
            return latest == previous ? item : latest
        }
        let listed = Set(result.map(\.itemKey))
        result += current.filter { before[$0.itemKey] == nil && !listed.contains($0.itemKey) }
        return result
    }

    /// Writes what was last agreed with the database, durably, off the main actor;
    /// with `offering`, the changes a save of those items is about to make too; with
    /// `merging`, the merge about to be written to the container.
    private func keepAgreement(
        offering local: [Item]? = nil, merging before: [Item] = [], into after: [Item] = []
    ) async throws {
        let backend = items
        let encoding = Task.detached {
            let agreement =
                if let local { try await backend.agreement(offering: local) } else { try backend.agreement() }
            return try AgreementFile(agreement: agreement, merging: before, into: after).encoded()
        }
        // A detached task is not cancelled with this one, and offering may read the
        // table first (to settle a save that failed): a stop must not wait on it while
        // the database is away.
        let file = try await withTaskCancellationHandler {
            try await encoding.value
        } onCancel: {
            encoding.cancel()
        }
        let support = support
        try await BlockingIO.run { () throws(SandboxError) in
            try support.create()
            try support.write(file, to: Self.agreementFile)
        }
    }
}
#endif
