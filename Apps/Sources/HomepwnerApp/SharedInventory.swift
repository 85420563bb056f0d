import AppSandbox
import AppStores
import Foundation
public import KeepsakeCloud

/// Homepwner on a database shared with other instances: the items in a shared item
/// store, the photos beside them (``SharedPhotos``), the settings in the ubiquitous
/// key-value store, all on PostgreSQL.
///
/// Each change made here is saved at once, off the main actor; each save made
/// elsewhere is read as soon as PostgreSQL notifies it, so that the pages, which poll
/// ``Inventory/revision``, show it within a second. Items changed on both sides are
/// merged field by field, the later change winning (``MergePolicy/fieldLastWriterWins``);
/// every such conflict goes to the lifecycle log with its three versions. While the
/// database is away, changes stay in memory; a save that fails, or gets no answer
/// within the backend's timeout, is tried again a second later. The settings stay
/// queued in the container.
@MainActor
public final class SharedInventory {
    public let items: PostgresItemStoreBackend<Item>
    public let photos: SharedPhotos
    public let settings: UbiquitousKeyValueStore
    let settingsService: PostgresKeyValueSync
    let log: LifecycleLog

    /// - Parameters:
    ///   - url: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
    ///   - name: what the instances share the inventory under; one database can hold
    ///     several inventories.
    /// - Throws: ``StoreError`` or ``UbiquitousStoreError`` for a URL it cannot use or a
    ///   settings file it cannot read.
    public init(url: String, name: String = HomepwnerServer.identifier, container: AppContainer, log: LifecycleLog)
        throws
    {
        self.log = log
        items = try PostgresItemStoreBackend<Item>(
            url: url, store: name, mergePolicy: .fieldLastWriterWins,
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
        photos = try SharedPhotos(blobs: PostgresBlobStore(url: url, store: name), container: container)
        settings = try UbiquitousKeyValueStore(container: container)
        settingsService = try PostgresKeyValueSync(url: url, store: name)
    }

    /// Keeps `inventory` in step with the database until the task is cancelled.
    public func run(_ inventory: Inventory) async {
        let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        inventory.onChange = { wake.yield() }
        inventory.sharedSettings = settings
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
                group.addTask { await service.run() }
                group.addTask { await settings.run(with: service) }
                group.addTask { await items.watch { wake.yield() } }
            }
        }
        // Ends when the task is cancelled, which ends the stream.
        await syncItems(of: inventory, wakeups: wakeups, wake: wake)
        connections.cancel()
        NotificationCenter.default.removeObserver(observation)
    }

    /// Saves the changes made here, then reads those made elsewhere, whenever either
    /// happens; after a failure, tries again a second later.
    private func syncItems(
        of inventory: Inventory, wakeups: AsyncStream<Void>, wake: AsyncStream<Void>.Continuation
    ) async {
        var failing = false
        for await _ in wakeups {
            do {
                if inventory.itemStore.isDirty { try await inventory.itemStore.saveInBackground() }
                // Read off the main actor first: a reload, which blocks it, only follows
                // when the database answered and has something new.
                if try await photos.refresh() { inventory.changedElsewhere() }
                if try await items.refresh() {
                    let before = inventory.allItems
                    if try inventory.itemStore.reloadIfSaved(), inventory.allItems != before {
                        inventory.changedElsewhere()
                    }
                }
                // The items in memory are now the database's, merges included.
                if !inventory.itemStore.isDirty {
                    await photos.removePhotos(ofDeletedItemsNotIn: Set(inventory.allItems.map(\.itemKey)))
                }
                if failing { log.record("Saving to the database works again") }
                failing = false
            } catch {
                if !failing { log.record("Could not sync the items with the database, trying again: \(error)") }
                failing = true
                Task {
                    try? await Task.sleep(for: .seconds(1))
                    wake.yield()
                }
            }
        }
    }
}
