import AppDefaults
import AppRuntime
import AppSandbox
import AppStores
import Foundation

/// The controller layer of Homepwner: the item list, photos and settings, over the
/// stores that own loading and saving (the book's MVCS pattern).
///
/// Every change checks its input first and changes nothing when it is refused. Item
/// operations go by ``Item/itemKey``, never by a list index the caller might hold from
/// a stale page. The inventory lives on the main actor with its item store, as the
/// book's controllers do, so changes that read then write, or touch two stores
/// (deleting an item and its photo), run one at a time; request handlers hop there.
@MainActor
package final class Inventory {
    /// Limits on what a request may store.
    package struct Limits: Sendable {
        package var maxNameLength = 200
        package var maxSerialNumberLength = 64
        package var maxValueInDollars = 1_000_000_000
        package var maxItems = 100_000
        /// The largest photo accepted, in bytes.
        package var maxPhotoBytes = 8 << 20
        package init() {}
    }

    package let container: AppContainer
    package let limits: Limits
    /// The items, archived to `Documents/items.archive`. Corresponds to the book's `ItemStore`.
    package let itemStore: ItemStore<Item>
    /// The photos, one file per item key in `Documents/images/`. Corresponds to the
    /// book's `ImageStore`. With shared photos, their local copies.
    package let imageStore: BlobStore
    /// The photos shared with other instances, in the database.
    package let sharedPhotos: (any PhotoSharing)?
    /// The settings, in `Library/Preferences/`.
    package let defaults: Defaults
    /// Counts the changes to the items and settings, made here or (with a shared
    /// store) elsewhere: a page rendered at one revision is out of date at the next.
    package private(set) var revision = 0
    /// Called with the settings page's choices, saved in ``defaults``, so that a shared
    /// store shares them too.
    package var onSettingsChange: (@MainActor (SortOrder, CurrencyFormat, _ showSerialNumbers: Bool) -> Void)?
    /// What waits to be pushed to the database, with a shared store.
    package var outbox: (@MainActor () -> Outbox?)?

    /// Opens the stores in `container`: items from `Documents/items.archive` and its
    /// journal, photos from `Documents/images/` (or `sharedPhotos`, shared with other
    /// processes), settings from `Library/Preferences/`; registers the default settings.
    /// - Throws: the stores' errors when what is saved cannot be read; nothing is then
    ///   overwritten.
    package init(
        container: AppContainer, limits: Limits = Limits(), sharedPhotos: (any PhotoSharing)? = nil
    ) throws {
        self.container = container
        self.limits = limits
        try container.createDirectories()
        itemStore = try ItemStore<Item>(container: container)
        self.sharedPhotos = sharedPhotos
        imageStore = try sharedPhotos?.cache ?? BlobStore(container: container)
        var configuration = Defaults.Configuration()
        // The command line is the server's own (--port…), not a defaults argument domain.
        configuration.arguments = []
        defaults = Defaults(container: container, configuration: configuration)
        try defaults.register(defaults: SettingsKey.registeredDefaults)
        // Photos of items that were never saved (the process was killed first).
        removeOrphanPhotos()
    }

    // MARK: Items

    /// Every item, in the store's (manual) order.
    package var allItems: [Item] { itemStore.allItems }

    package func items(sortedBy order: SortOrder) -> [Item] { order.sorted(itemStore.allItems) }

    package func item(forKey key: String) -> Item? { itemStore.allItems.first { $0.itemKey == key } }

    /// Whether there are changes not yet saved.
    package var hasUnsavedChanges: Bool { itemStore.isDirty }

    /// Checks a new or edited item's fields as a form sends them.
    /// - Throws: ``HomepwnerError`` `.badRequest` naming the field.
    package func validatedFields(name: String?, serialNumber: String?, valueInDollars: String?) throws -> (
        name: String, serialNumber: String?, valueInDollars: Int
    ) {
        let name = (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw HomepwnerError(.badRequest, "name is required") }
        // A character may carry any number of combining marks, so bytes are bounded too:
        // four per character, what the longest single scalar takes.
        guard name.count <= limits.maxNameLength, name.utf8.count <= limits.maxNameLength * 4 else {
            throw HomepwnerError(.badRequest, "name is longer than \(limits.maxNameLength) characters")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw HomepwnerError(.badRequest, "name contains control characters")
        }
        let serial = (serialNumber ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard serial.count <= limits.maxSerialNumberLength, serial.utf8.count <= limits.maxSerialNumberLength * 4,
            !serial.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw HomepwnerError(
                .badRequest, "serialNumber must be at most \(limits.maxSerialNumberLength) printable characters")
        }
        let valueText = (valueInDollars ?? "").trimmingCharacters(in: .whitespaces)
        let value: Int
        if valueText.isEmpty {
            value = 0
        } else if let parsed = Int(valueText), (0...limits.maxValueInDollars).contains(parsed) {
            value = parsed
        } else {
            throw HomepwnerError(
                .badRequest,
                "valueInDollars must be a whole number from 0 to \(limits.maxValueInDollars), not \"\(valueText.prefix(40))\""
            )
        }
        return (name, serial.isEmpty ? nil : serial, value)
    }

    /// Adds an item, and returns once it is durable. Corresponds to the book's
    /// `createItem()`.
    /// - Throws: ``HomepwnerError`` `.badRequest` when the fields are invalid or the
    ///   inventory is full, `.storageFailed` (`.insufficientStorage` on a full disk)
    ///   when it could not be saved (it is then not added).
    @discardableResult
    package func createItem(name: String?, serialNumber: String?, valueInDollars: String?) async throws -> Item {
        let fields = try validatedFields(name: name, serialNumber: serialNumber, valueInDollars: valueInDollars)
        return try await add(
            Item(name: fields.name, serialNumber: fields.serialNumber, valueInDollars: fields.valueInDollars))
    }

    /// Adds a random item from the book's adjectives and nouns.
    @discardableResult
    package func createRandomItem() async throws -> Item { try await add(Item.random()) }

    private func add(_ item: Item) async throws -> Item {
        guard itemStore.allItems.count < limits.maxItems else {
            throw HomepwnerError(.badRequest, "the inventory is full (\(limits.maxItems) items)")
        }
        itemStore.add(item)
        changed()
        try await commit()
        return item
    }

    /// Replaces an item's name, serial number and value, and returns once that is
    /// durable.
    /// - Throws: ``HomepwnerError`` `.notFound`, `.badRequest`, `.storageFailed`
    ///   (`.insufficientStorage` on a full disk).
    @discardableResult
    package func updateItem(forKey key: String, name: String?, serialNumber: String?, valueInDollars: String?)
        async throws -> Item
    {
        let fields = try validatedFields(name: name, serialNumber: serialNumber, valueInDollars: valueInDollars)
        var updated: Item?
        _ = itemStore.updateAll(where: { $0.itemKey == key }) { item in
            item.name = fields.name
            item.serialNumber = fields.serialNumber
            item.valueInDollars = fields.valueInDollars
            updated = item
        }
        guard let updated else { throw Self.noItem(key) }
        changed()
        try await commit()
        return updated
    }

    /// Removes an item and, once its removal is durable, its photo. Corresponds to the
    /// book's `removeItem(_:)` plus `imageStore.deleteImage(forKey:)`.
    ///
    /// The photo goes only after the removal is durable: removing it first would leave,
    /// after a crash between the two, the item back without its photo. A crash after
    /// the removal leaves the photo, which the next start removes. A shared photo stays
    /// in the database until the item store forgets the deletion (``PhotoSharing``).
    /// - Throws: ``HomepwnerError`` `.notFound`, `.storageFailed` (`.insufficientStorage` on a full disk).
    package func deleteItem(forKey key: String) async throws {
        guard item(forKey: key) != nil else { throw Self.noItem(key) }
        _ = itemStore.removeAll { $0.itemKey == key }
        changed()
        try await commit()
        if sharedPhotos == nil { try? await imageStore.delete(forKey: key) }
    }

    /// Moves an item to `index` in the manual order (clamped to the list).
    /// Corresponds to the book's `moveItem(from:to:)`.
    /// - Throws: ``HomepwnerError`` `.notFound`, `.storageFailed` (`.insufficientStorage` on a full disk).
    package func moveItem(forKey key: String, to index: Int) async throws {
        let items = itemStore.allItems
        guard let from = items.firstIndex(where: { $0.itemKey == key }) else { throw Self.noItem(key) }
        let to = min(max(index, 0), items.count - 1)
        if from != to {
            _ = itemStore.move(from: from, to: to)
            changed()
            try await commit()
        }
    }

    /// Returns once every change made so far is durable in the container: the item
    /// store's journal is `fsync`ed, shared by the changes other requests made meanwhile.
    /// A change that could not be saved is undone by the store. With a shared store,
    /// ``SharedInventory`` then pushes it from the journal, told by the store once it
    /// is durable.
    private func commit() async throws {
        do {
            try await itemStore.flush()
        } catch {
            changedElsewhere()
            throw HomepwnerError.storage("the change could not be saved", error)
        }
    }

    /// Records a change made here. A shared store learns of item changes from the
    /// item store, once they are durable (``ItemStore/onDurableChanges``).
    private func changed() {
        revision += 1
    }

    /// Records a change made elsewhere (a shared store reloaded, shared settings).
    package func changedElsewhere() {
        revision += 1
    }

    /// Saves the items if anything changed, the settings, and the photos' files (each
    /// store's checkpoint: what they acknowledged is durable already).
    /// - Throws: the first store's error; what was saved before is then intact.
    package func save() throws {
        try itemStore.saveIfDirty()
        try defaults.checkpoint()
        // No item is added or removed meanwhile: the items in memory are the saved ones.
        removeOrphanPhotos()
        try imageStore.flush()
    }

    /// Removes every photo whose item is not in the store: deleted items' photos, and
    /// photos of items that a crash kept from being saved. Best effort: a photo that
    /// cannot be removed now is tried again at the next save.
    private func removeOrphanPhotos() {
        // Shared photos belong to items other instances may have added meanwhile.
        guard sharedPhotos == nil, let keys = try? imageStore.allKeys() else { return }
        let itemKeys = Set(itemStore.allItems.map(\.itemKey))
        for key in keys where !itemKeys.contains(key) {
            try? imageStore.delete(forKey: key)
        }
    }

    /// ``save()`` reporting success as a `Bool`, as the book's `saveChanges()` does.
    @discardableResult
    package func saveChanges() -> Bool { (try? save()) != nil }

    // MARK: Photos

    /// Stores `data` as the item's photo, replacing any previous one.
    /// - Throws: ``HomepwnerError`` `.notFound`, `.contentTooLarge`,
    ///   `.unsupportedMediaType` (not JPEG or PNG), `.storageFailed` (`.insufficientStorage` on a full disk).
    package func setPhoto(_ data: Data, forKey key: String) async throws {
        guard data.count <= limits.maxPhotoBytes else {
            throw HomepwnerError(
                .contentTooLarge, "the photo is \(data.count) bytes; the limit is \(limits.maxPhotoBytes)")
        }
        guard !data.isEmpty else { throw HomepwnerError(.badRequest, "the photo is empty") }
        guard ImageKind(bytes: data) != .unknown else {
            throw HomepwnerError(.unsupportedMediaType, "the photo must be a JPEG or PNG image")
        }
        guard item(forKey: key) != nil else { throw Self.noItem(key) }
        do {
            if let sharedPhotos {
                try await sharedPhotos.set(data, forKey: key)
            } else {
                try await imageStore.set(data, forKey: key)
            }
        } catch {
            throw HomepwnerError.storage("could not store the photo", error)
        }
        changed()
    }

    /// The item's photo and its media type.
    /// - Throws: ``HomepwnerError`` `.notFound` (no such item, or no photo), `.storageFailed`.
    package func photo(forKey key: String) async throws -> (data: Data, mimeType: String) {
        guard item(forKey: key) != nil else { throw Self.noItem(key) }
        let data: Data?
        do {
            if let sharedPhotos {
                data = try await sharedPhotos.data(forKey: key, maxBytes: limits.maxPhotoBytes)
            } else {
                data = try await imageStore.data(forKey: key)
            }
        } catch {
            throw HomepwnerError(.storageFailed, "could not read the photo: \(error)")
        }
        guard let data else { throw HomepwnerError(.notFound, "item \(key) has no photo") }
        return (data, ImageKind(bytes: data).mimeType)
    }

    package func hasPhoto(forKey key: String) -> Bool {
        sharedPhotos?.contains(key) ?? imageStore.contains(key: key)
    }

    /// Where a page finds the item's photo, `nil` when it has none. A shared photo's
    /// path names its version, so a page updated in place shows a replaced photo.
    package func photoPath(forKey key: String) -> String? {
        guard hasPhoto(forKey: key) else { return nil }
        let path = "/items/\(escapePath(key))/photo"
        return sharedPhotos?.version(of: key).map { "\(path)?v=\($0)" } ?? path
    }

    /// Removes the item's photo; an item without one is not an error.
    /// - Throws: ``HomepwnerError`` `.notFound`, `.storageFailed` (`.insufficientStorage` on a full disk).
    package func deletePhoto(forKey key: String) async throws {
        guard item(forKey: key) != nil else { throw Self.noItem(key) }
        do {
            if let sharedPhotos {
                try await sharedPhotos.delete(forKey: key)
            } else {
                try await imageStore.delete(forKey: key)
            }
        } catch {
            throw HomepwnerError.storage("could not delete the photo", error)
        }
        changed()
    }

    // MARK: Settings

    package var sortOrder: SortOrder {
        defaults.string(forKey: SettingsKey.sortOrder).flatMap(SortOrder.init(rawValue:)) ?? .manual
    }

    package var currencyFormat: CurrencyFormat {
        defaults.string(forKey: SettingsKey.currencyFormat).flatMap(CurrencyFormat.init(rawValue:)) ?? .dollars
    }

    package var showsSerialNumbers: Bool { defaults.bool(forKey: SettingsKey.showSerialNumbers) }

    /// Stores the settings page's choices, and returns once they are durable.
    /// - Throws: ``HomepwnerError`` `.badRequest` for a value that is not one of the
    ///   choices, `.storageFailed` (`.insufficientStorage` on a full disk) when they
    ///   could not be saved.
    package func updateSettings(sortOrder: String?, currencyFormat: String?, showSerialNumbers: Bool) async throws {
        guard let order = SortOrder(rawValue: sortOrder ?? "") else {
            throw HomepwnerError(
                .badRequest, "sortOrder must be one of \(SortOrder.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let format = CurrencyFormat(rawValue: currencyFormat ?? "") else {
            throw HomepwnerError(
                .badRequest,
                "currencyFormat must be one of \(CurrencyFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        defaults.set(order.rawValue, forKey: SettingsKey.sortOrder)
        defaults.set(format.rawValue, forKey: SettingsKey.currencyFormat)
        defaults.set(showSerialNumbers, forKey: SettingsKey.showSerialNumbers)
        onSettingsChange?(order, format, showSerialNumbers)
        changed()
        let defaults = defaults
        do {
            try await BlockingIO.run { () throws(DefaultsError) in try defaults.flush() }
        } catch {
            throw HomepwnerError.storage("the settings could not be saved", error)
        }
    }

    nonisolated static func noItem(_ key: String) -> HomepwnerError {
        HomepwnerError(.notFound, "no item has the key \"\(key.prefix(80))\"")
    }
}
