public import AppLifecycle
public import AppSandbox
import Foundation
public import KeyedArchive
import Synchronization

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
/// itemStore.attach(to: application)
/// try itemStore.save()
/// ```
///
/// Thread-safe: every operation takes the store's lock, so concurrent request handlers
/// may share one store. The closures given to ``update(at:_:)``,
/// ``removeAll(where:)`` and the like run under that lock: they must not call back
/// into the store.
///
/// Models may be classes, as the books write them: an item changed in place through a
/// reference a controller holds (`itemStore.allItems[0].name = "…"`) is found by
/// ``isDirty`` and saved on the next automatic save, like every other change.
public final class ItemStore<Model: KeyedArchivable & Sendable>: Sendable {
    private struct State {
        var items: [Model]
        /// Bumped by every change; the store is dirty while it differs from `savedVersion`.
        var version = 0
        var savedVersion = 0
        /// For class models, ``ItemStore/fingerprint(of:)`` of the items as last saved
        /// or loaded: the store cannot see an edit made in place through a reference.
        var savedFingerprint: Int?
        var autosaveTokens: [ObservationToken] = []
        var lastAutosaveError: StoreError?
    }

    public let backend: any ItemStoreBackend<Model>
    private let state: Mutex<State>
    /// Held for a whole save so saves reach the backend in order.
    private let saving = Mutex(())

    /// Loads the items from `backend`.
    /// - Throws: ``StoreError`` from the backend: `.corruptArchive` (the file stays as
    ///   it is), `.readFailed`.
    public init(backend: some ItemStoreBackend<Model>) throws(StoreError) {
        self.backend = backend
        let items = try backend.loadItems()
        state = Mutex(State(items: items, savedFingerprint: Self.fingerprint(of: items)))
    }

    /// Loads the items from `fileName` (default `items.archive`) in the container's
    /// `Documents/`; a missing file is an empty store.
    /// - Throws: ``StoreError``.
    public convenience init(container: AppContainer, fileName: String = "items.archive") throws(StoreError) {
        try self.init(backend: ArchiveFileBackend<Model>(container: container, fileName: fileName))
    }

    // MARK: Reading

    /// Every item, in order. Corresponds to the seeds' `allItems`.
    public var allItems: [Model] { state.withLock { $0.items } }

    /// How many items there are.
    public var count: Int { state.withLock { $0.items.count } }

    /// The item at `index`, or `nil` past the end.
    public func item(at index: Int) -> Model? {
        state.withLock { $0.items.indices.contains(index) ? $0.items[index] : nil }
    }

    /// The first item matching `predicate`.
    public func first(where predicate: (Model) -> Bool) -> Model? {
        state.withLock { $0.items.first(where: predicate) }
    }

    /// Whether there are changes not yet saved. For class models this includes items
    /// changed in place, found by archiving the items and comparing the archive's
    /// fingerprint with the one taken at the last save or load.
    public var isDirty: Bool {
        let (items, changed, savedFingerprint) = state.withLock {
            ($0.items, $0.version != $0.savedVersion, $0.savedFingerprint)
        }
        return changed || Self.fingerprint(of: items) != savedFingerprint
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
        mutate { $0.append(item) }
    }

    /// Inserts `item` at `index` (clamped to the valid range).
    public func insert(_ item: Model, at index: Int) {
        mutate { $0.insert(item, at: min(max(index, 0), $0.count)) }
    }

    /// Removes and returns the item at `index`; `nil` (and no change) past the end,
    /// which a handler working from a stale list can meet.
    /// Corresponds to the seeds' `removeItem(_:)`.
    @discardableResult
    public func remove(at index: Int) -> Model? {
        state.withLock { state in
            guard state.items.indices.contains(index) else { return nil }
            state.version += 1
            return state.items.remove(at: index)
        }
    }

    /// Removes every item matching `predicate`; returns how many went.
    @discardableResult
    public func removeAll(where predicate: (Model) -> Bool) -> Int {
        state.withLock { state in
            let before = state.items.count
            state.items.removeAll(where: predicate)
            let removed = before - state.items.count
            if removed > 0 { state.version += 1 }
            return removed
        }
    }

    /// Moves the item at `from` to `to`, shifting the ones between. Corresponds to the
    /// seeds' `moveItem(from:to:)`. Returns `false` (and changes nothing) when either
    /// index is out of range.
    @discardableResult
    public func move(from: Int, to: Int) -> Bool {
        state.withLock { state in
            guard state.items.indices.contains(from), state.items.indices.contains(to) else { return false }
            guard from != to else { return true }
            let item = state.items.remove(at: from)
            state.items.insert(item, at: to)
            state.version += 1
            return true
        }
    }

    /// Changes the item at `index` in place. Returns `false` past the end.
    @discardableResult
    public func update(at index: Int, _ body: (inout Model) -> Void) -> Bool {
        state.withLock { state in
            guard state.items.indices.contains(index) else { return false }
            body(&state.items[index])
            state.version += 1
            return true
        }
    }

    /// Changes every item matching `predicate`; returns how many matched.
    @discardableResult
    public func updateAll(where predicate: (Model) -> Bool, _ body: (inout Model) -> Void) -> Int {
        state.withLock { state in
            var changed = 0
            for index in state.items.indices where predicate(state.items[index]) {
                body(&state.items[index])
                changed += 1
            }
            if changed > 0 { state.version += 1 }
            return changed
        }
    }

    /// Replaces every item.
    public func replaceAll(with items: [Model]) {
        mutate { $0 = items }
    }

    private func mutate(_ body: (inout [Model]) -> Void) {
        state.withLock { state in
            body(&state.items)
            state.version += 1
        }
    }

    // MARK: Saving

    /// Saves every item through the backend, whether or not anything changed.
    /// Changes made while the save runs stay unsaved (the store stays dirty), edits
    /// made in place to class items included.
    ///
    /// Corresponds to `NSKeyedArchiver.archiveRootObject(allItems, toFile:)` in the
    /// seeds' `saveChanges()`.
    /// - Throws: ``StoreError``: `.encodingFailed`, `.writeFailed` (with the file
    ///   layer's `.noSpace`, `.ioError`…); the previous archive is then intact and the
    ///   store still dirty.
    public func save() throws(StoreError) {
        try saving.withLock { _ throws(StoreError) in
            let (items, version) = state.withLock { ($0.items, $0.version) }
            // Taken before the backend archives the items: an in-place edit made while
            // it does leaves the store dirty, never marked saved.
            let fingerprint = Self.fingerprint(of: items)
            try backend.saveItems(items)
            state.withLock { state in
                state.savedVersion = max(state.savedVersion, version)
                state.savedFingerprint = fingerprint
            }
        }
    }

    /// ``save()`` reporting success as a `Bool`, as the seeds' `saveChanges()` does.
    @discardableResult
    public func saveChanges() -> Bool {
        (try? save()) != nil
    }

    /// Saves if there are unsaved changes.
    /// - Throws: ``StoreError``, as ``save()``.
    public func saveIfDirty() throws(StoreError) {
        if isDirty { try save() }
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
        state.withLock { $0.autosaveTokens.append(token) }
    }

    /// The error of the last automatic save, or `nil` if it succeeded.
    public var lastAutosaveError: StoreError? { state.withLock { $0.lastAutosaveError } }

    private func autosave() {
        do {
            try saveIfDirty()
            state.withLock { $0.lastAutosaveError = nil }
        } catch {
            state.withLock { $0.lastAutosaveError = error }
            StandardStream.error.report("ItemStore: automatic save failed: \(error)")
        }
    }
}
