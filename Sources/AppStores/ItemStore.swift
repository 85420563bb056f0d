public import AppLifecycle
import AppRuntime
@_spi(Journal) public import AppSandbox
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
/// A store made with ``init(container:fileName:lockTimeout:)`` keeps a write-ahead
/// journal beside the archive (`items.archive.journal`): every change made through the
/// store is recorded there as it is made, and ``flush()`` returns once every change made
/// so far is written and `fsync`ed, sharing one `fsync` with the changes other tasks
/// made meanwhile. Acknowledge a change (an HTTP reply, a "Saved" label) only after
/// ``flush()``. The archive stays the books' file: ``save()`` writes it whole and
/// starts an empty journal, and so does the store by itself when the journal outgrows
/// the archive; loading replays the journal on top of it. A kill at any instant loses
/// no flushed change.
///
/// The store reads back every model it accepts: a `Model` that adopts
/// `KeyedSecureCoding` is decoded securely, and the book's `NSCoding` item ported as a
/// plain `KeyedCoding` class is decoded as the book's `unarchiveObject(withFile:)`
/// decodes it (`KeyedUnarchiver.unarchivedStoredObject(ofClass:from:)`).
///
/// Which calls are durable when they return: ``flush()``, ``save()``,
/// ``saveChanges()`` (when it returns `true`), ``saveIfDirty()`` and
/// ``saveInBackground()``. The changing methods (``add(_:)``, ``remove(at:)``…) only
/// queue their record. An item changed in place through a class reference is not seen
/// by the journal: only a save stores it, as in the books.
///
/// The store lives on the main actor, with the app delegate and the controllers that
/// use it, as UIKit's objects do: models may be the books' plain classes with `var`
/// properties, never declared `Sendable`. An item changed in place through a reference
/// a controller holds is found by ``isDirty`` and saved on the next automatic save,
/// like every other change. ``save()`` waits on the main actor, as an iOS app's
/// `saveChanges()` does; a server, whose handlers must not wait on the disk, awaits
/// ``flush()`` after its changes (each change's record is archived as it is made), or
/// ``saveInBackground()``, which archives every item on the main actor and writes and
/// `fsync`s on the journal's queue (a queue of the store's own without a journal).
@MainActor
public final class ItemStore<Model: KeyedArchivable> {
    /// Where the items are kept: its own concern once the store is made.
    let backend: any ItemStoreBackend<Model>

    /// Every item, in order. Corresponds to the seeds' `allItems`; changing the array
    /// (`itemStore.allItems.remove(at: 0)`) marks the store dirty like the methods below,
    /// and is journaled as a replacement of every item.
    public var allItems: [Model] {
        get { items }
        set {
            items = newValue
            record(.replaceAll(newValue), told: .replacedAll)
        }
    }

    /// Told, on the main actor, of the changes made through the store once they are
    /// durable (their journal record `fsync`ed, or a save written), in the order they
    /// were made; never of a change a failed write undid. A sync engine's outbox:
    /// what it pushes is already safe here.
    ///
    /// With the changes comes where they reach in the store's files (`nil` without a
    /// journal): kept once they are pushed, it is what to ask ``changes(after:)`` for
    /// after a restart. A save that writes the archive tells its position even when it
    /// made no change durable, since the journal before it is gone.
    ///
    /// Changes are kept for it only while it is set.
    public var onDurableChanges: (([Change], _ through: JournalPosition?) -> Void)?
    /// Changes made since the last told, each with the journal ticket (or save number)
    /// that makes it durable, `nil` for the next save's, which writes every item; and
    /// where its record put the journal.
    private var untoldChanges: [(ticket: UInt64?, change: Change, position: JournalPosition?)] = []
    /// The ticket of the last change told.
    private var toldTicket: UInt64 = 0
    /// Where the journal stands after the last change recorded, durable or not; `nil`
    /// without a journal. A sync engine that compares every item after a ``flush()``
    /// has pushed every change up to here.
    public private(set) var journalPosition: JournalPosition?
    /// The changes the journal held when the store was opened, each with where its
    /// record left the journal, from `start`: what ``changes(after:)`` gives, until the
    /// store changes or is saved.
    private var recovered: (start: JournalPosition, changes: [(position: JournalPosition, change: Change)])?

    private var items: [Model]
    /// Bumped by every change; the store is dirty while it differs from `savedVersion`.
    private var version = 0
    private var savedVersion = 0
    /// For class models, ``fingerprint(of:)`` of the items as last saved or loaded: the
    /// store cannot see an edit made in place through a reference.
    private var savedFingerprint: Int?
    /// Saves are numbered as they are asked for (journal tickets, when there is a
    /// journal); their writes reach the disk in that order. The newest one known to be
    /// written is what the store compares itself with.
    private var lastSaveNumber: UInt64 = 0
    private var savedSaveNumber: UInt64 = 0
    /// Saves whose write has not finished, successfully or not.
    private var writesInFlight = 0
    private var autosaveTokens: [ObservationToken] = []
    /// Writes run here one at a time, in the order the saves were asked for, off the
    /// main actor and off Swift's cooperative pool; for a store without a journal.
    private let writes = SerialIOQueue(label: "keepsake.item-store.writes")

    /// The journal and the archive it follows, for a store made on a container.
    private let journaled: (journal: Journal, archive: ArchiveFileBackend<Model>)?
    /// The ticket and version of the last change recorded in the journal.
    private var lastRecorded: (ticket: Journal.Ticket, version: Int)?
    /// Set when a change could not be recorded (its item would not archive): records
    /// after it would replay on the wrong items, so nothing more is recorded until a
    /// save writes the whole archive.
    private var unrecordedVersion: Int?
    /// Every ticket up to this one was rolled back to what the disk holds.
    private var rolledBackThrough: Journal.Ticket = 0
    private var checkpointScheduled = false

    /// Loads the items from `backend`. Changes are durable when a save returns; there
    /// is no journal (``init(container:fileName:lockTimeout:)`` has one).
    /// - Throws: ``StoreError`` from the backend: `.corruptArchive` (the file stays as
    ///   it is), `.readFailed`.
    public convenience init(backend: some ItemStoreBackend<Model>) throws(StoreError) {
        self.init(backend: backend, items: try backend.loadItems())
    }

    /// ``init(backend:)`` that suspends while the backend loads, holding no thread.
    /// - Throws: ``StoreError``, as ``init(backend:)``.
    public convenience init(backend: some ItemStoreBackend<Model>) async throws(StoreError) {
        self.init(backend: backend, items: try await backend.loadItems())
    }

    private init(backend: some ItemStoreBackend<Model>, items: [Model]) {
        self.backend = backend
        journaled = nil
        self.items = items
        savedFingerprint = Self.fingerprint(of: items)
    }

    /// Loads the items from `fileName` (default `items.archive`) in the container's
    /// `Documents/`, a missing file being an empty store, and replays the journal
    /// beside it (`items.archive.journal`).
    ///
    /// A torn last record (a crash in the middle of a write) is dropped; damaged bytes
    /// followed by whole records are kept in a file beside the journal; each is
    /// reported on standard error. Only one store at a time holds the journal: this
    /// waits at most `lockTimeout` for another to close it.
    /// - Throws: ``StoreError``: `.corruptArchive` (nothing is changed), `.readFailed`
    ///   (also when another store keeps the journal open).
    public init(container: AppContainer, fileName: String = "items.archive", lockTimeout: Duration = .seconds(2))
        throws(StoreError)
    {
        let archive = ArchiveFileBackend<Model>(container: container, fileName: fileName)
        backend = archive
        var checkpoint: [Model] = []
        let journal: Journal
        let recovery: JournalRecovery
        do {
            (journal, recovery) = try Journal.open(
                archive.file.journalName, in: archive.directory, lockTimeout: lockTimeout
            ) {
                let (items, digest) = try archive.loadCheckpoint()
                checkpoint = items
                return digest
            }
        } catch let error as StoreError {
            throw error
        } catch let error as SandboxError {
            throw StoreError(.readFailed, wrapping: error, path: archive.file.journalURL.path)
        } catch {
            throw StoreError(
                .readFailed, "cannot open the journal", path: archive.file.journalURL.path, underlyingError: error)
        }
        journaled = (journal, archive)
        let start = JournalPosition(following: journal.checkpointDigest)
        var position = start
        var changes: [(position: JournalPosition, change: Change)] = []
        var tickets = recovery.tickets.makeIterator()
        items = try archive.replay(recovery.records, onto: checkpoint) { change, record, before in
            position = position.advanced(past: record, ticket: tickets.next() ?? 0)
            changes.append((position, change.told(on: before)))
        }
        (journalPosition, recovered) = (position, (start, changes))
        savedFingerprint = Self.fingerprint(of: items)
    }

    /// The changes made durable after `position` by an earlier run, read back from the
    /// journal when the store was opened, and where the last of them leaves it: what a
    /// sync engine that kept `position` as its cursor has still to push. `nil` when the
    /// files no longer show them one by one (the archive was written since `position`,
    /// or this is not the journal `position` was in), and once this run has changed or
    /// saved the store: compare every item then.
    public func changes(after position: JournalPosition) -> (changes: [Change], through: JournalPosition)? {
        guard let recovered else { return nil }
        if position == recovered.start {
            return (recovered.changes.map(\.change), recovered.changes.last?.position ?? position)
        }
        guard let index = recovered.changes.firstIndex(where: { $0.position == position }) else { return nil }
        let after = recovered.changes[(index + 1)...]
        return (after.map(\.change), after.last?.position ?? position)
    }

    deinit {
        journaled?.journal.close()
    }

    // MARK: Reading

    /// How many items there are.
    public var count: Int { items.count }

    /// The item at `index`, or `nil` past the end.
    public func item(at index: Int) -> Model? {
        items.indices.contains(index) ? items[index] : nil
    }

    /// The first item matching `predicate`.
    public func first(where predicate: (Model) -> Bool) -> Model? {
        items.first(where: predicate)
    }

    /// Whether there are changes not yet durable. For class models this includes items
    /// changed in place, found by archiving the items and comparing the archive's
    /// fingerprint with the one taken at the last save or load.
    public var isDirty: Bool {
        isDirty(fingerprint: Self.fingerprint(of: items))
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
        insert(item, at: items.count)
    }

    /// Inserts `item` at `index` (clamped to the valid range).
    public func insert(_ item: Model, at index: Int) {
        change(.insert(item, at: min(max(index, 0), items.count)))
    }

    /// Removes and returns the item at `index`; `nil` (and no change) past the end,
    /// which a handler working from a stale list can meet.
    /// Corresponds to the seeds' `removeItem(_:)`.
    @discardableResult
    public func remove(at index: Int) -> Model? {
        guard items.indices.contains(index) else { return nil }
        let item = items[index]
        change(.remove(at: index))
        return item
    }

    /// Removes every item matching `predicate`; returns how many went.
    @discardableResult
    public func removeAll(where predicate: (Model) -> Bool) -> Int {
        let matching = items.indices.filter { predicate(items[$0]) }
        for index in matching.reversed() { change(.remove(at: index)) }
        return matching.count
    }

    /// Moves the item at `from` to `to`, shifting the ones between. Corresponds to the
    /// seeds' `moveItem(from:to:)`. Returns `false` (and changes nothing) when either
    /// index is out of range.
    @discardableResult
    public func move(from: Int, to: Int) -> Bool {
        guard items.indices.contains(from), items.indices.contains(to) else { return false }
        guard from != to else { return true }
        change(.move(from: from, to: to))
        return true
    }

    /// Changes the item at `index` in place. Returns `false` past the end.
    @discardableResult
    public func update(at index: Int, _ body: (inout Model) -> Void) -> Bool {
        guard items.indices.contains(index) else { return false }
        var item = items[index]
        body(&item)
        change(.replace(item, at: index))
        return true
    }

    /// Replaces the item at `index` with `item`. Returns `false` past the end.
    @discardableResult
    public func replace(at index: Int, with item: Model) -> Bool {
        guard items.indices.contains(index) else { return false }
        change(.replace(item, at: index))
        return true
    }

    /// Changes every item matching `predicate`; returns how many matched.
    @discardableResult
    public func updateAll(where predicate: (Model) -> Bool, _ body: (inout Model) -> Void) -> Int {
        let matching = items.indices.filter { predicate(items[$0]) }
        for index in matching { update(at: index, body) }
        return matching.count
    }

    /// Replaces every item.
    public func replaceAll(with items: [Model]) {
        change(.replaceAll(items))
    }

    /// Applies `change` and records it in the journal.
    private func change(_ change: ItemChange<Model>) {
        let told = onDurableChanges == nil ? nil : change.told(on: items)
        change.apply(to: &items)
        record(change, told: told)
    }

    /// Counts a change made to `items`, queues its record, and keeps `told` for
    /// ``onDurableChanges``.
    private func record(_ change: ItemChange<Model>, told: Change?) {
        version += 1
        recovered = nil
        var ticket: UInt64?
        if let journal = journaled?.journal, unrecordedVersion == nil {
            do {
                let payload = try change.encoded()
                let appended = try journal.append(payload)
                (ticket, lastRecorded) = (appended, (appended, version))
                journalPosition = journalPosition?.advanced(past: payload, ticket: appended)
            } catch {
                // Left for a save, which writes every item or says why it cannot.
                unrecordedVersion = version
            }
        }
        if let told, onDurableChanges != nil {
            untoldChanges.append((ticket, told, ticket == nil ? nil : journalPosition))
        }
    }

    /// Tells ``onDurableChanges`` of the changes made durable by `ticket` and those
    /// before it; `checkpoint` is where the journal starts again when `ticket` wrote
    /// the archive.
    private func tellDurable(through ticket: UInt64, checkpoint: JournalPosition? = nil) {
        let durable = untoldChanges.prefix { $0.ticket.map { $0 <= ticket } ?? false }
        // A save finishing after later records were told: its archive is behind them.
        let checkpoint = ticket > toldTicket ? checkpoint : nil
        guard !durable.isEmpty || checkpoint != nil else { return }
        untoldChanges.removeFirst(durable.count)
        toldTicket = max(toldTicket, ticket)
        onDurableChanges?(durable.map(\.change), checkpoint ?? durable.last?.position)
    }

    /// Forgets the changes not yet told, whose items were replaced by what the disk
    /// holds: any of them that was durable is in it, so every item may have changed.
    private func tellReplacedFromDisk() {
        untoldChanges.removeAll()
        onDurableChanges?([.replacedAll], nil)
    }

    // MARK: Durability

    /// Returns once every change made so far through the store is durable: written
    /// to the journal and `fsync`ed (with a journal), or saved (without one). Changes
    /// other tasks made meanwhile share the `fsync`. The moment to acknowledge them.
    ///
    /// When a write or `fsync` of the journal fails, the changes not yet durable are
    /// undone, here and on disk, so that the store holds what a restart would find,
    /// and the error is thrown: report the change as not saved. A change whose item
    /// could not be archived is saved by a whole save instead, which reports why.
    /// - Throws: ``StoreError`` `.writeFailed` (with the file layer's code),
    ///   `.encodingFailed`.
    public func flush() async throws(StoreError) {
        guard let (journal, archive) = journaled else {
            if isDirty { try await saveInBackground() }
            return
        }
        if unrecordedVersion != nil {
            try await saveInBackground()
            return
        }
        guard let recorded = lastRecorded, recorded.ticket > savedSaveNumber else { return }
        do {
            try await journal.waitUntilDurable(recorded.ticket)
        } catch {
            rollBack(through: recorded.ticket)
            throw StoreError(.writeFailed, wrapping: error, path: archive.file.journalURL.path)
        }
        markSaved((recorded.ticket, recorded.version, savedFingerprint, nil))
        checkpointIfLarge()
    }

    /// After a failed journal write: cuts the journal back to its durable records and
    /// rebuilds the items from the disk, once for every failure up to `ticket`. Blocks
    /// the main actor for one truncate and one read, so that no change slips in
    /// between; a failure path only.
    private func rollBack(through ticket: Journal.Ticket) {
        guard let (journal, archive) = journaled, ticket > rolledBackThrough else { return }
        rolledBackThrough = lastRecorded?.ticket ?? ticket
        do {
            try journal.waitUntilDurableBlocking(journal.discardUndurable())
            items = try archive.itemsOnDisk(following: journal)
            version += 1
            savedVersion = version
            savedSaveNumber = max(savedSaveNumber, rolledBackThrough)
            savedFingerprint = Self.fingerprint(of: items)
            tellReplacedFromDisk()
        } catch {
            // The disk cannot even be read back: the changes stay here, unsaved, for
            // the next save to try, and are durable only once it succeeds.
            untoldChanges = untoldChanges.map { (nil, $0.change, nil) }
            StandardStream.error.report("ItemStore: cannot undo the changes a failed write lost: \(error)")
        }
    }

    /// Writes the whole archive in the background when the journal has grown past it
    /// (and past 1 MiB), so that replay at start-up stays short.
    private func checkpointIfLarge() {
        guard let journal = journaled?.journal, !checkpointScheduled,
            journal.size > max(1 << 20, Int(clamping: journal.checkpointDigest.length))
        else { return }
        checkpointScheduled = true
        Task {
            defer { checkpointScheduled = false }
            do {
                try await saveInBackground()
            } catch {
                StandardStream.error.report("ItemStore: writing the archive to shorten the journal failed: \(error)")
            }
        }
    }

    // MARK: Saving

    /// Saves every item through the backend (with a journal: writes the whole archive
    /// and starts an empty journal), whether or not anything changed, and returns when
    /// the items are on disk. Waits for background saves asked for before.
    ///
    /// Corresponds to `NSKeyedArchiver.archiveRootObject(allItems, toFile:)` in the
    /// seeds' `saveChanges()`.
    /// - Throws: ``StoreError``: `.encodingFailed`, `.writeFailed` (with the file
    ///   layer's `.noSpace`, `.ioError`…); the previous archive is then intact and the
    ///   store still dirty.
    public func save() throws(StoreError) {
        try save(fingerprint: Self.fingerprint(of: items))
    }

    private func save(fingerprint: Int?) throws(StoreError) {
        let pending = try prepareSave(fingerprint: fingerprint)
        let result = pending.wait()
        writesInFlight -= 1
        try finish(pending, result)
    }

    /// ``save()`` without holding the main actor while the file is written and
    /// `fsync`ed: the items are archived here, then written on the store's queue (or
    /// the journal's), after any save asked for before. Changes made meanwhile, in
    /// place or through the store, stay unsaved (the store stays dirty).
    /// - Throws: ``StoreError``, as ``save()``.
    public func saveInBackground() async throws(StoreError) {
        let pending = try prepareSave(fingerprint: Self.fingerprint(of: items))
        let result = await pending.waitInBackground()
        writesInFlight -= 1
        try finish(pending, result)
    }

    /// What the store is once a save's write has succeeded, and where its journal then
    /// starts (with a journal).
    private typealias SavedState = (number: UInt64, version: Int, fingerprint: Int?, checkpoint: JournalPosition?)

    /// A save under way: its write is queued, and these wait for it.
    private struct PendingSave {
        let saved: SavedState
        let wait: () -> Result<Void, StoreError>
        let waitInBackground: () async -> Result<Void, StoreError>
    }

    /// Archives the items as they are now, and queues the write that stores them.
    /// `fingerprint` is the items' as they are now: an edit made while the write runs
    /// leaves the store dirty, never marked saved.
    private func prepareSave(fingerprint: Int?) throws(StoreError) -> PendingSave {
        if let (journal, archive) = journaled {
            let snapshot = try archive.snapshot(of: items)
            let file = archive.file
            let ticket = journal.checkpoint { () throws(SandboxError) in try file.writeCheckpoint(snapshot) }
            // Records appended from now on follow this archive. Should its write fail,
            // they stay in the old journal: a position taken now names no file, and a
            // sync engine that kept it compares every item after a restart.
            let checkpoint = JournalPosition(following: CheckpointDigest(of: snapshot))
            (journalPosition, recovered) = (checkpoint, nil)
            assignUntoldChanges(toSave: ticket, fingerprint: fingerprint)
            writesInFlight += 1
            if let unrecorded = unrecordedVersion, unrecorded <= version { unrecordedVersion = nil }
            let path = archive.url.path
            func mapped(_ result: Result<Void, SandboxError>) -> Result<Void, StoreError> {
                result.mapError { StoreError(.writeFailed, wrapping: $0, path: path) }
            }
            return PendingSave(
                saved: (ticket, version, fingerprint, checkpoint),
                wait: { mapped(Result { () throws(SandboxError) in try journal.waitUntilDurableBlocking(ticket) }) },
                waitInBackground: {
                    do throws(SandboxError) {
                        try await journal.waitUntilDurable(ticket)
                        return .success(())
                    } catch {
                        return mapped(.failure(error))
                    }
                })
        }
        let write = try Self.write(items, to: backend)
        lastSaveNumber += 1
        assignUntoldChanges(toSave: lastSaveNumber, fingerprint: fingerprint)
        writesInFlight += 1
        let writes = writes
        return PendingSave(
            saved: (lastSaveNumber, version, fingerprint, nil),
            wait: { writes.runBlocking(write) },
            waitInBackground: { await writes.run { write() } })
    }

    private static func write(
        _ items: [Model], to backend: some ItemStoreBackend<Model>
    ) throws(StoreError) -> @Sendable () -> Result<Void, StoreError> {
        let snapshot = try backend.snapshot(of: items)
        return { Result { () throws(StoreError) in try backend.write(snapshot) } }
    }

    /// The changes waiting for a save (that could not be journaled, or were made on a
    /// store without a journal) are made durable by save `number`; so are the items of a
    /// class model changed in place, which its `fingerprint` finds.
    private func assignUntoldChanges(toSave number: UInt64, fingerprint: Int?) {
        guard onDurableChanges != nil else { return }
        if fingerprint != savedFingerprint { untoldChanges.append((nil, .replacedAll, nil)) }
        untoldChanges = untoldChanges.map { ($0.ticket ?? number, $0.change, $0.position) }
    }

    /// Marks the store saved when `result` says the write succeeded; else the changes
    /// left for it wait for the next save.
    private func finish(_ pending: PendingSave, _ result: Result<Void, StoreError>) throws(StoreError) {
        do {
            try result.get()
        } catch {
            untoldChanges = untoldChanges.map {
                ($0.ticket == pending.saved.number ? nil : $0.ticket, $0.change, $0.position)
            }
            throw error
        }
        markSaved(pending.saved)
    }

    /// Records a finished write, unless a save asked for later has already been: its
    /// write came after this one, so the disk holds what it wrote.
    private func markSaved(_ saved: SavedState) {
        tellDurable(through: saved.number, checkpoint: saved.checkpoint)
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

    /// Saves if there are unsaved changes, or (with a journal) records not yet in
    /// the archive: what the automatic save on entering the background does.
    /// - Throws: ``StoreError``, as ``save()``.
    public func saveIfDirty() throws(StoreError) {
        let fingerprint = Self.fingerprint(of: items)
        if isDirty(fingerprint: fingerprint) || journaled?.journal.isEmpty == false {
            try save(fingerprint: fingerprint)
        }
    }

    // MARK: Reloading

    /// Replaces the items with what the backend holds now, other processes' saves
    /// included when the backend is shared with them, and returns `true`. When there
    /// are changes here that are not saved (a save of them failed, or was refused for a
    /// conflict), or a save is still being written, a reload would lose them: it
    /// returns `false` and changes nothing; save first, or ``reload()``.
    /// - Throws: ``StoreError``, as `init(backend:)`; the items are then unchanged.
    @discardableResult
    public func reloadIfSaved() throws(StoreError) -> Bool {
        guard writesInFlight == 0, !isDirty else { return false }
        try reload()
        return true
    }

    /// Replaces the items with what the backend holds now (with a journal: the archive
    /// and the journal's durable records), dropping the changes here that are not
    /// saved: the app's choice after a conflict it settles in the backend's favour.
    /// Waits for the saves being written.
    /// - Throws: ``StoreError``, as `init(backend:)`; the items are then unchanged.
    public func reload() throws(StoreError) {
        let loaded: [Model]
        if let (journal, archive) = journaled {
            do {
                try journal.waitUntilDurableBlocking(journal.discardUndurable())
            } catch {
                throw StoreError(.readFailed, wrapping: error, path: archive.file.journalURL.path)
            }
            loaded = try archive.itemsOnDisk(following: journal)
        } else {
            writes.runBlocking {}
            loaded = try backend.loadItems()
        }
        replaceWithReloaded(loaded)
    }

    private func replaceWithReloaded(_ loaded: [Model]) {
        items = loaded
        recovered = nil
        tellReplacedFromDisk()
        version += 1
        // Saves asked for before, finishing late, must not mark anything saved.
        savedSaveNumber = max(lastSaveNumber, lastRecorded?.ticket ?? 0)
        savedVersion = version
        savedFingerprint = Self.fingerprint(of: loaded)
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
