#if Database
import AppRuntime
import AppSandbox
import AppStores
import Foundation
import KeepsakeCloud
import ServiceLifecycle

/// Homepwner on a database shared with other instances: the items kept in step by
/// ``ItemStoreSync``, the engine every shared app uses, the photos beside them
/// (``SharedPhotos``), the settings in the ubiquitous key-value store, all on
/// PostgreSQL.
///
/// The container stays the truth for this instance: every change is durable in the
/// item store's journal before it is acknowledged, as without a database, and the
/// journal is the outbox. Items changed on both sides are merged field by field, the
/// later change winning (``MergePolicy/fieldLastWriterWins``); every such conflict goes
/// to the lifecycle log with its three versions.
@MainActor
package final class SharedInventory {
    /// The process's one client of the database, which every store below shares; the
    /// server runs it as a service beside the HTTP server.
    package let database: CloudDatabase
    package let items: PostgresItemStoreBackend<Item>
    package let photos: SharedPhotos
    package let settings: UbiquitousKeyValueStore
    let settingsService: PostgresKeyValueSync
    let log: LifecycleLog
    private let support: SandboxDirectory
    /// The engine, once ``run(_:)`` started it.
    private var sync: ItemStoreSync<Item>?

    /// What waits to be pushed from `inventory`, and how the last push went.
    package func outbox(of inventory: Inventory) -> Outbox {
        let status = sync?.status
        return Outbox(
            pendingItems: status?.pendingItems ?? inventory.allItems.count,
            pendingSettings: settings.outbox.pendingChanges, lastPush: status?.lastPush, lastError: status?.lastError,
            itemsReceived: status?.receiving.map { ($0.done, $0.total) })
    }

    /// - Parameters:
    ///   - url: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
    ///   - name: what the instances share the inventory under; one database can hold
    ///     several inventories.
    ///   - tombstoneRetention: how long a deleted item's row and photo stay in the
    ///     database (``PostgresItemStoreBackend/tombstoneRetention``).
    /// - Throws: ``CloudDatabaseError`` (`.invalidURL`) for a URL it cannot use; ``UbiquitousStoreError``
    ///   for a settings file it cannot read.
    package init(
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
        photos = try SharedPhotos(blobs: PostgresBlobStore(database: database, store: name), container: container)
        settings = try UbiquitousKeyValueStore(container: container)
        settingsService = PostgresKeyValueSync(database: database, store: name)
    }

    /// ``run(_:)`` as a service, for a group that runs it after ``database`` and
    /// before the HTTP server: shut down in reverse, the server stops first, then this,
    /// then the client it used.
    package struct Sync: Service {
        let shared: SharedInventory
        let inventory: Inventory

        package func run() async throws {
            await cancelWhenGracefulShutdown { await shared.run(inventory) }
        }
    }

    /// The service keeping `inventory` in step with the database.
    package nonisolated func sync(_ inventory: Inventory) -> Sync { Sync(shared: self, inventory: inventory) }

    /// Keeps `inventory` in step with the database until the task is cancelled.
    package func run(_ inventory: Inventory) async {
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
        defer { NotificationCenter.default.removeObserver(observation) }
        let (settings, service) = (settings, settingsService)
        let settingsSync = Task.detached { await settings.run(with: service) }
        defer { settingsSync.cancel() }
        let sync: ItemStoreSync<Item>
        do {
            sync = try ItemStoreSync(store: inventory.itemStore, backend: items, directory: support)
        } catch {
            log.record("Could not open what was last agreed with the database, the items are not shared: \(error)")
            return
        }
        sync.log = { [log] in log.record($0) }
        sync.onChangeElsewhere = { [weak inventory] in inventory?.changedElsewhere() }
        sync.eachRound = { [photos, weak inventory] in
            if try await photos.refresh() { inventory?.changedElsewhere() }
        }
        self.sync = sync
        await sync.run()
    }
}
#endif
