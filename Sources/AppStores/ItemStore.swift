public import AppLifecycle
public import AppSandbox
import Foundation
public import KeyedArchive

/// The store that owns the app's model objects: it loads them when made, hands them
/// to controllers, and saves them, so controllers never touch files.
///
/// Corresponds to the books' `ItemStore` (MVCS). Loading happens in the initialiser,
/// as in the seeds' `init()`; ``save()`` throws where the seeds' `saveChanges()`
/// returned `false` (``saveChanges()`` is kept). ``attach(to:)`` saves automatically
/// when the app enters the background and before it terminates.
///
/// ```swift
/// let itemStore = try ItemStore<Item>(container: container)   // Documents/items.archive
/// itemStore.add(Item(name: "Bike", valueInDollars: 300))
/// itemStore.allItems[0].name = "Red bike"                     // a class item, changed in place
/// itemStore.attach(to: application)
/// try itemStore.save()
/// ```
///
/// The store lives on the main actor, with the app delegate and the controllers that
/// use it, as UIKit's objects do: models may be the books' plain classes with `var`
/// properties, never declared `Sendable`. An item changed in place through a reference
/// a controller holds is found by ``isDirty`` and saved on the next automatic save,
/// like every other change. ``save()`` writes on the main actor, as an iOS app's
/// `saveChanges()` does; a server, whose handlers must not wait on the disk, calls
/// ``saveInBackground()``, which archives on the main actor and writes and `fsync`s
/// on a queue of the store's own.
@MainActor
public final class ItemStore<Model: KeyedArchivable> {
    public let backend: any ItemStoreBackend<Model>

    /// Every item, in order. Corresponds to the seeds' `allItems`; changing the array
    /// (`itemStore.allItems.remove(at: 0)`) marks the store dirty like the methods below.
    public var allItems: [Model] {
        didSet { version += 1 }
    }

    /// Bumped by every change; the store is dirty while it differs from `savedVersion`.
    private var version = 0
    private var savedVersion = 0
    /// For class models, ``fingerprint(of:)`` of the items as last saved or loaded: the
    /// store cannot see an edit made in place through a reference.
    private var savedFingerprint: Int?
    /// Saves are numbered as they are asked for; their writes reach the disk in that
    /// order. The newest one known to be written is what the store compares itself with.
    private var lastSaveNumber = 0
    private var savedSaveNumber = 0
    /// Saves whose write has not finished, successfully or not.
    private var writesInFlight = 0
    private var autosaveTokens: [ObservationToken] = []
    /// Writes run here one at a time, in the order the saves were asked for, off the
    /// main actor and off Swift's cooperative pool.
    private let writes = DispatchQueue(label: "keepsake.item-store.writes")

    /// Loads the items from `backend`.
    /// - Throws: ``StoreError`` from the backend: `.corruptArchive` (the file stays as
    ///   it is), `.readFailed`.
    public init(backend: some ItemStoreBackend<Model>) throws(StoreError) {
        self.backend = backend
        allItems = try backend.loadItems()
        savedFingerprint = Self.fingerprint(of: allItems)
    }

    /// Loads the items from `fileName` (default `items.archive`) in the container's
    /// `Documents/`; a missing file is an empty store.
    /// - Throws: ``StoreError``.
    public convenience init(container: AppContainer, fileName: String = "items.archive") throws(StoreError) {
        try self.init(backend: ArchiveFileBackend<Model>(container: container, fileName: fileName))
    }

    // MARK: Reading

    /// How many items there are.
    public var count: Int { allItems.count }

    /// The item at `index`, or `nil` past the end.
    public func item(at index: Int) -> Model? {
        allItems.indices.contains(index) ? allItems[index] : nil
    }

    /// The first item matching `predicate`.
    public func first(where predicate: (Model) -> Bool) -> Model? {
        allItems.first(where: predicate)
    }

    /// Whether there are changes not yet saved. For class models this includes items
    /// changed in place, found by archiving the items and comparing the archive's
    /// fingerprint with the one taken at the last save or load.
    public var isDirty: Bool {
        isDirty(fingerprint: Self.fingerprint(of: allItems))
    }

    private func isDirty(fingerprint: Int?) -> Bool {
        version != savedVersion || fingerprint != savedFingerprint
    }

    /// A hash of the archive of `items` when `Model` is a class (whose instances can
    /// change without the store knowing); `nil` for value types, whose every change
    /// goes through the store, and when the items cannot be archived (a save will then
    /// report why).
    private static func fingerprint(of items: [Model]) -> Int? {
        guard Model.self is AnyObject.Type,
            let archive = try? KeyedArchiver.archivedData(withRootObject: items)
        else { return nil }
        var hasher = Hasher()
        // Data's own hash reads only its first bytes.
        archive.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    // MARK: Changing

    /// Appends `item`. Corresponds to the seeds' `createItem()` after making the item.
    public func add(_ item: Model) {
        allItems.append(item)
    }

    /// Inserts `item` at `index` (clamped to the valid range).
    public func insert(_ item: Model, at index: Int) {
        allItems.insert(item, at: min(max(index, 0), allItems.count))
    }

    /// Removes and returns the item at `index`; `nil` (and no change) past the end,
    /// which a handler working from a stale list can meet.
    /// Corresponds to the seeds' `removeItem(_:)`.
    @discardableResult
    public func remove(at index: Int) -> Model? {
        guard allItems.indices.contains(index) else { return nil }
        return allItems.remove(at: index)
    }

    /// Removes every item matching `predicate`; returns how many went.
    @discardableResult
    public func removeAll(where predicate: (Model) -> Bool) -> Int {
        let kept = allItems.filter { !predicate($0) }
        let removed = allItems.count - kept.count
        if removed > 0 { allItems = kept }
        return removed
    }

    /// Moves the item at `from` to `to`, shifting the ones between. Corresponds to the
    /// seeds' `moveItem(from:to:)`. Returns `false` (and changes nothing) when either
    /// index is out of range.
    @discardableResult
    public func move(from: Int, to: Int) -> Bool {
        guard allItems.indices.contains(from), allItems.indices.contains(to) else { return false }
        guard from != to else { return true }
        let item = allItems.remove(at: from)
        allItems.insert(item, at: to)
        return true
    }

    /// Changes the item at `index` in place. Returns `false` past the end.
    @discardableResult
    public func update(at index: Int, _ body: (inout Model) -> Void) -> Bool {
        guard allItems.indices.contains(index) else { return false }
        body(&allItems[index])
        return true
    }

    /// Changes every item matching `predicate`; returns how many matched.
    @discardableResult
    public func updateAll(where predicate: (Model) -> Bool, _ body: (inout Model) -> Void) -> Int {
        let matching = allItems.indices.filter { predicate(allItems[$0]) }
        for index in matching { body(&allItems[index]) }
        return matching.count
    }

    /// Replaces every item.
    public func replaceAll(with items: [Model]) {
        allItems = items
    }

    // MARK: Saving

    /// Saves every item through the backend, whether or not anything changed, and
    /// returns when the items are on disk. Waits for background saves asked for before.
    ///
    /// Corresponds to `NSKeyedArchiver.archiveRootObject(allItems, toFile:)` in the
    /// seeds' `saveChanges()`.
    /// - Throws: ``StoreError``: `.encodingFailed`, `.writeFailed` (with the file
    ///   layer's `.noSpace`, `.ioError`…); the previous archive is then intact and the
    ///   store still dirty.
    public func save() throws(StoreError) {
        try save(fingerprint: Self.fingerprint(of: allItems))
    }

    private func save(fingerprint: Int?) throws(StoreError) {
        let (write, saved) = try prepareSave(fingerprint: fingerprint)
        let result = writes.sync { Result(catching: write) }
        writesInFlight -= 1
        try result.get()
        markSaved(saved)
    }

    /// ``save()`` without holding the main actor while the file is written and
    /// `fsync`ed: the items are archived here, then written on the store's queue, after
    /// any save asked for before. Changes made meanwhile, in place or through the
    /// store, stay unsaved (the store stays dirty).
    /// - Throws: ``StoreError``, as ``save()``.
    public func saveInBackground() async throws(StoreError) {
        let (write, saved) = try prepareSave(fingerprint: Self.fingerprint(of: allItems))
        let result: Result<Void, StoreError> = await withCheckedContinuation { continuation in
            writes.async { continuation.resume(returning: Result(catching: write)) }
        }
        writesInFlight -= 1
        try result.get()
        markSaved(saved)
    }

    /// What the store is once a save's write has succeeded.
    private typealias SavedState = (number: Int, version: Int, fingerprint: Int?)

    /// Archives the items as they are now, and returns the write that stores them.
    /// `fingerprint` is the items' as they are now: an edit made while the write runs
    /// leaves the store dirty, never marked saved.
    private func prepareSave(
        fingerprint: Int?
    ) throws(StoreError) -> (write: @Sendable () throws(StoreError) -> Void, SavedState) {
        let write = try Self.write(allItems, to: backend)
        lastSaveNumber += 1
        writesInFlight += 1
        return (write, (lastSaveNumber, version, fingerprint))
    }

    private static func write(
        _ items: [Model], to backend: some ItemStoreBackend<Model>
    ) throws(StoreError) -> @Sendable () throws(StoreError) -> Void {
        let snapshot = try backend.snapshot(of: items)
        return { () throws(StoreError) in try backend.write(snapshot) }
    }

    /// Records a finished write, unless a save asked for later has already been: its
    /// write came after this one, so the disk holds what it wrote.
    private func markSaved(_ saved: SavedState) {
        guard saved.number > savedSaveNumber else { return }
        savedSaveNumber = saved.number
        savedVersion = saved.version
        savedFingerprint = saved.fingerprint
    }

    /// ``save()`` reporting success as a `Bool`, as the seeds' `saveChanges()` does.
    @discardableResult
    public func saveChanges() -> Bool {
        (try? save()) != nil
    }

    /// Saves if there are unsaved changes.
    /// - Throws: ``StoreError``, as ``save()``.
    public func saveIfDirty() throws(StoreError) {
        let fingerprint = Self.fingerprint(of: allItems)
        if isDirty(fingerprint: fingerprint) { try save(fingerprint: fingerprint) }
    }

    // MARK: Reloading

    /// Replaces the items with what the backend holds now, other processes' saves
    /// included when the backend is shared with them, and returns `true`. When there
    /// are changes here that are not saved (a save of them failed, or was refused for a
    /// conflict), or a save is still being written, a reload would lose them: it
    /// returns `false` and changes nothing; save first, or ``reload()``.
    /// - Throws: ``StoreError``, as ``init(backend:)``; the items are then unchanged.
    @discardableResult
    public func reloadIfSaved() throws(StoreError) -> Bool {
        guard writesInFlight == 0, !isDirty else { return false }
        try reload()
        return true
    }

    /// Replaces the items with what the backend holds now, dropping the changes here
    /// that are not saved: the app's choice after a conflict it settles in the
    /// backend's favour. Waits for the saves being written.
    /// - Throws: ``StoreError``, as ``init(backend:)``; the items are then unchanged.
    public func reload() throws(StoreError) {
        writes.sync {}
        let items = try backend.loadItems()
        allItems = items
        // Saves asked for before, finishing late, must not mark anything saved.
        savedSaveNumber = lastSaveNumber
        savedVersion = version
        savedFingerprint = Self.fingerprint(of: items)
    }

    // MARK: Automatic saving

    /// Saves unsaved changes whenever `application` enters the background and before it
    /// terminates, after the delegate's callback; done before the next callback, so
    /// before a `SIGTSTP` stops the process or a `SIGTERM` ends it. A failed automatic
    /// save is kept in ``lastAutosaveError`` and printed to standard error.
    public func attach(to application: Application) {
        let token = application.addObserver(for: [.didEnterBackground, .willTerminate]) { [weak self] _ in
            self?.autosave()
        }
        autosaveTokens.append(token)
    }

    /// The error of the last automatic save, or `nil` if it succeeded.
    public private(set) var lastAutosaveError: StoreError?

    private func autosave() {
        do {
            try saveIfDirty()
            lastAutosaveError = nil
        } catch {
            lastAutosaveError = error
            StandardStream.error.report("ItemStore: automatic save failed: \(error)")
        }
    }
}
