public import AppSandbox
public import AppStores
public import Foundation
public import KeyedArchive

/// Keeps an `ItemStore` in step with the other processes that share its items
/// through a ``PostgresItemStoreBackend``: the sync engine of a shared store, for any
/// app whose model is `Identifiable`.
///
/// The container stays the truth for this process: a change is durable in the item
/// store's journal before it is acknowledged, as without a database, and the journal
/// is the outbox. The store tells the engine each change once it is durable
/// (`ItemStore.onDurableChanges`), and the engine pushes those items, and only those,
/// off the main actor. Rows others wrote are read as soon as PostgreSQL notifies
/// them, merged field by field when the item changed here too, and applied to the
/// store item by item: an insert, an edit, a move or a removal, each a journal record
/// of its own.
///
/// What was last agreed with the database is kept in `directory`
/// (`shared-items.agreement` and its journal, `AgreementLog`), a change at a time, so
/// that after a restart the changes made while the database was away are pushed, and
/// merged, as changes from it. With it goes the cursor: where in the item store's
/// journal the last change pushed sits. A start pushes the changes the journal holds
/// after it (`ItemStore.changes(after:)`). When the journal no longer shows them one
/// by one (the store wrote its archive since), and after a change of every item
/// (`ItemStore.replaceAll(with:)`), the engine compares every item instead.
///
/// ```swift
/// let sync = try ItemStoreSync(store: itemStore, backend: backend, directory: container.directory(.applicationSupport))
/// sync.onChangeElsewhere = { tableView.reloadData() }
/// Task { await sync.run() }          // until cancelled
/// ```
@MainActor
public final class ItemStoreSync<Model: KeyedArchivable & Identifiable> {
    public let store: ItemStore<Model>
    public let backend: PostgresItemStoreBackend<Model>
    /// Called after changes made elsewhere reached the store.
    public var onChangeElsewhere: (() -> Void)?
    /// Told, in a sentence, of what the engine had to do out of the ordinary: a merge
    /// done again after a stop, a push that failed and is tried again.
    public var log: (String) -> Void = { _ in }
    /// Further work for each round, after the push (photos shared beside the items).
    public var eachRound: (() async throws -> Void)?

    /// Where pushing stands, for a settings page or a status command.
    public struct Status: Sendable, Equatable {
        /// Items changed here and not yet in the database; `nil` while every item must
        /// be compared (a start the cursor cannot serve, or after `ItemStore.replaceAll(with:)`).
        public var pendingItems: Int?
        public var lastPush: Date?
        /// Why the last round failed; `nil` once one succeeds.
        public var lastError: String?
        /// Rows written elsewhere being taken into the store, a page at a time (a new
        /// instance's first sync of a large store): how many are in, of how many; `nil`
        /// when none are waiting.
        public var receiving: Progress?
    }

    /// How far a long piece of work has come.
    public struct Progress: Sendable, Equatable {
        public var done: Int
        public var total: Int
    }
    public private(set) var status = Status()

    private let agreement: AgreementLog
    /// A merge the last run kept before the store had it, done again before the first round.
    private var interruptedMerge: [AgreementLog.MergedItem]
    /// Why what was last agreed could not be read, told to ``log`` when the engine runs.
    private var unreadAgreement: String?
    /// Why the agreement could not be written whole when the engine was made, told to
    /// ``log`` when it runs.
    private var unwrittenAgreement: String?
    /// The items changed here since the last push, by id: each as its last durable
    /// change left it, or removed.
    private var pending: [String: PendingItem] = [:]
    /// Whether the next push compares every item: after a start the cursor cannot
    /// serve, or a change of them all.
    private var pushesEveryItem = true
    private var toldCount = 0
    /// Where the store's journal stands after the last change told, and after the last
    /// change pushed, as kept in the agreement: the cursor.
    private var toldThrough: JournalPosition?
    private var keptCursor: JournalPosition?
    private var started = false
    private let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    private struct PendingItem {
        /// The item as made durable, which is what is pushed (a later change of it may
        /// still be on its way to the disk); `nil` once removed.
        var item: Model?
        /// Where the change left it, and how many changes were told by then: where to
        /// look for it among the items now, for its neighbours.
        var index: Int
        var toldCount: Int
    }

    /// Opens what was last agreed, kept in `directory` under `name`. What cannot be
    /// read is dropped, and told to ``log``: the changes made here are then pushed as
    /// changes from nothing, merged with what the database holds. Make the engine when
    /// the app starts, before it changes the store: it takes over the changes the
    /// store's journal recovered. When the agreement's journal outgrew it, it is written
    /// whole here, holding the caller as the read of it did.
    /// - Throws: `SandboxError` when the files cannot be read or another process keeps
    ///   them open.
    public init(
        store: ItemStore<Model>, backend: PostgresItemStoreBackend<Model>, directory: SandboxDirectory,
        name: String = "shared-items.agreement"
    ) throws(SandboxError) {
        self.store = store
        self.backend = backend
        var contents: AgreementLog.Contents
        do {
            (agreement, contents) = try AgreementLog.open(name, in: directory)
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.ioError, "cannot open \(name): \(error)", path: directory.url.path)
        }
        do {
            try backend.restoreAgreement(contents.agreement, changes: contents.changes)
        } catch {
            contents = AgreementLog.Contents(problem: "\(error)")
            try? backend.restoreAgreement(nil, changes: [])
        }
        interruptedMerge = contents.merge
        unreadAgreement = contents.problem
        // From now on, so that no change made before the engine runs goes untold.
        store.onDurableChanges = { [weak self] changes, through in self?.note(changes, through: through) }
        if let cursor = contents.cursor, let recovered = store.changes(after: cursor) {
            (keptCursor, toldThrough, pushesEveryItem) = (cursor, cursor, false)
            note(recovered.changes, through: recovered.through)
        } else {
            // The first push compares every item, made durable up to here at least.
            toldThrough = store.journalPosition
        }
        // Written whole now, before the app serves anything, when there is none (it
        // names the store it is with), it could not be read, or its journal outgrew it.
        // Left to a round, it would never be written by a process stopped more often
        // than a checkpoint of a large store lasts, and its journal would grow forever.
        guard contents.agreement == nil || contents.problem != nil || agreement.wantsCheckpoint else { return }
        do {
            try agreement.checkpointBlocking(try backend.agreement(), merge: interruptedMerge, cursor: keptCursor)
        } catch {
            unwrittenAgreement = "\(error)"
        }
    }

    /// Keeps the store in step with the database until the task is cancelled.
    public func run() async {
        let (backend, wake) = (backend, wake)
        let watching = Task.detached { await backend.watch { wake.yield() } }
        defer { watching.cancel() }
        await start()
        wake.yield()
        // Ends when the task is cancelled, which ends the stream.
        for await _ in wakeups {
            await round()
        }
    }

    /// Brings the store and the database in step once, for a process that makes a
    /// change and exits (a command-line tool): pushes what changed here, then takes
    /// what changed elsewhere, until neither has more. From the first call on, the
    /// store's changes are noted for the next.
    /// - Throws: the database's error, or the store's. Nothing is lost: what was not
    ///   pushed is pushed by the next call, or by the next process's first.
    public func synchronize() async throws {
        await start()
        guard interruptedMerge.isEmpty else { throw unfinishedMerge }
        repeat {
            try await push()
            try await eachRound?()
            try await takeChangesMadeElsewhere()
        } while pushesEveryItem || !pending.isEmpty
        try await checkpointIfLarge()
    }

    /// What a start does before the first round: tells of an agreement it could not
    /// read or write whole, and finishes the merge the last stop interrupted.
    private func start() async {
        guard !started else { return }
        started = true
        if let unreadAgreement {
            log("What was last agreed with the database cannot be read, starting afresh: \(unreadAgreement)")
        }
        if let unwrittenAgreement {
            log("Could not write what was agreed with the database whole: \(unwrittenAgreement)")
        }
        (unreadAgreement, unwrittenAgreement) = (nil, nil)
        await finishInterruptedMerge()
    }

    /// Notes the items of `changes`, which reach `through` in the store's journal, for
    /// the next push, and wakes it.
    private func note(_ changes: [ItemStore<Model>.Change], through: JournalPosition?) {
        if let through { toldThrough = through }
        for change in changes {
            toldCount += 1
            guard let item = change.item else {
                pushesEveryItem = true
                pending = [:]
                continue
            }
            let removed = if case .removed = change { true } else { false }
            pending[String(describing: item.id)] = PendingItem(
                item: removed ? nil : item, index: change.index ?? 0, toldCount: toldCount)
        }
        status.pendingItems = pushesEveryItem ? nil : pending.count
        wake.yield()
    }

    private func round() async {
        await finishInterruptedMerge()
        do {
            // Until the store has it, memory holds versions older than what was agreed,
            // which a push would take for changes made here.
            guard interruptedMerge.isEmpty else { throw unfinishedMerge }
            try await push()
            try await eachRound?()
            try await takeChangesMadeElsewhere()
            try await checkpointIfLarge()
            if status.lastError != nil { log("Saving to the database works again") }
            status.lastError = nil
            if pushesEveryItem || !pending.isEmpty { wake.yield() }
        } catch {
            if status.lastError == nil { log("Could not sync the items with the database, trying again: \(error)") }
            status.lastError = "\(error)"
            let wake = wake
            Task {
                try? await Task.sleep(for: .seconds(1))
                wake.yield()
            }
        }
    }

    // MARK: Pushing

    /// Pushes the items changed here since the last push, keeping the agreement before
    /// the save (naming its changes: a stop between the commit and the agreement after
    /// it must not leave the rows it wrote unknown) and after it, with the cursor.
    private func push() async throws {
        let through = toldThrough
        guard pushesEveryItem || !pending.isEmpty else {
            // A save of the store moved the journal on: nothing to push up to there.
            if through != keptCursor { try await keepAgreement(cursor: through) }
            return
        }
        let (taken, everyItem) = (pending, pushesEveryItem)
        (pending, pushesEveryItem) = ([:], false)
        do {
            var save = try everyItem ? nil : scope(of: taken, in: store.allItems)
            if save == nil { save = try await everyDurableItem() }
            guard let save else {
                // Changes kept coming: tried again in the next round.
                pending.merge(taken) { later, _ in later }
                pushesEveryItem = true
                return
            }
            if await backend.offer(save) > 0 {
                try await keepAgreement()
                try await backend.save(save)
                status.lastPush = Date()
            }
            try await keepAgreement(cursor: through)
        } catch {
            // Pushed again with what changed since.
            pending.merge(taken) { later, _ in later }
            pushesEveryItem = pushesEveryItem || everyItem
            status.pendingItems = pushesEveryItem ? nil : pending.count
            throw error
        }
        status.pendingItems = pushesEveryItem ? nil : pending.count
    }

    /// The save of the `taken` items, each placed by where it is now in `items`, or
    /// deleted; `nil` when every item must be compared to place them.
    private func scope(of taken: [String: PendingItem], in items: [Model]) throws(StoreError) -> SaveScope? {
        var changed: [(index: Int, item: Model)] = []
        var deleted: [String] = []
        for (id, change) in taken {
            guard let item = change.item else {
                deleted.append(id)
                continue
            }
            guard let index = find(id, near: change.index, movedBy: toldCount - change.toldCount, in: items) else {
                return nil
            }
            changed.append((index, item))
        }
        changed.sort { $0.index < $1.index }
        return try backend.scope(of: items, changed: changed, deleted: deleted)
    }

    /// Every item, once all of them are durable; `nil` when changes kept coming
    /// meanwhile. Value items are taken as they are now, then the store is flushed:
    /// changes made meanwhile are told later, and pushed by the next round. With a
    /// journal, that writes no archive, which would end the journal a change not yet
    /// pushed is found in after the cursor by the next start. Class items may have
    /// changed in place, which only a save makes durable: the store is saved, and read
    /// with no change made since.
    private func everyDurableItem() async throws -> SaveScope? {
        guard Model.self is AnyObject.Type else {
            let items = store.allItems
            try await store.flush()
            return .every(try backend.snapshot(of: items))
        }
        for _ in 0..<5 {
            try await store.saveInBackground()
            if !store.isDirty { return .every(try backend.snapshot(of: store.allItems)) }
        }
        return nil
    }

    /// The index of item `id`, which was at `index` before `moves` later changes (each
    /// of which moved it by at most one place): looked for from there outwards, so
    /// that an item nothing moved is found at once.
    private func find(_ id: String, near index: Int, movedBy moves: Int, in items: [Model]) -> Int? {
        func holds(_ candidate: Int) -> Bool {
            items.indices.contains(candidate) && String(describing: items[candidate].id) == id
        }
        for distance in 0...max(moves, 0) {
            if holds(index - distance) { return index - distance }
            if holds(index + distance) { return index + distance }
        }
        return nil
    }

    /// Keeps what changed in the agreement since it was last kept, with `merge` and
    /// `cursor` when given: every change up to `cursor` is in the database.
    private func keepAgreement(merge: [AgreementLog.MergedItem]? = nil, cursor: JournalPosition? = nil) async throws {
        let (whole, change) = try backend.takeAgreementChange()
        let moved = cursor != keptCursor ? cursor : nil
        do {
            if let whole {
                try await agreement.checkpoint(whole, merge: merge ?? interruptedMerge, cursor: moved ?? keptCursor)
            } else {
                try await agreement.keep(change: change, merge: merge, cursor: moved)
            }
        } catch {
            backend.agreementNotKept()
            throw error
        }
        if let moved { keptCursor = moved }
    }

    private var unfinishedMerge: StoreError {
        StoreError(
            .writeFailed, "the merge the last stop interrupted is not in the store yet; nothing is pushed until it is")
    }

    /// Writes the whole agreement again once its journal has outgrown it.
    private func checkpointIfLarge() async throws {
        guard agreement.wantsCheckpoint else { return }
        let backend = backend
        let whole = try await Task.detached { try backend.agreement() }.value
        try await agreement.checkpoint(whole, merge: interruptedMerge, cursor: keptCursor)
    }

    // MARK: Receiving

    /// Applies the rows written elsewhere since the last round, item by item. An item
    /// changed here since the last push is left to the next push, which merges it.
    private func takeChangesMadeElsewhere() async throws {
        guard !pushesEveryItem, try await backend.refresh() else { return }
        let rows = backend.rowsNotInMemory()
        // In pages: each keeps an agreement record of its own, bounded whatever the
        // store's size, and between them the main actor answers pages, which show how
        // far the taking has come.
        defer { status.receiving = nil }
        for start in stride(from: 0, to: rows.count, by: Self.pageSize) {
            status.receiving = Progress(done: start, total: rows.count)
            guard try await take(Array(rows[start..<min(start + Self.pageSize, rows.count)])) else {
                wake.yield()
                return
            }
        }
    }

    /// How many rows one step of taking others' changes handles: a new instance's first
    /// sync of a large store is this many at a time.
    static var pageSize: Int { 5_000 }

    /// Keeps the agreement with the merge of `rows` (see `AgreementLog`), then gives
    /// the store their items; returns `false`, taking nothing, while changes made here
    /// are still on their way to the disk.
    private func take(_ rows: [SharedItemRecord]) async throws -> Bool {
        // A change made here and not yet durable is not pending yet: made durable now,
        // it is, and its item waits for the push, which merges it.
        if store.isDirty { try await store.flush() }
        guard !store.isDirty else { return false }
        let rows = rows.filter { pending[$0.id] == nil }
        let wanted = Set(rows.map(\.id))
        var indexes: [String: Int] = [:]
        for (index, item) in store.allItems.enumerated() {
            let id = String(describing: item.id)
            if wanted.contains(id) { indexes[id] = index }
        }
        var merge: [AgreementLog.MergedItem] = []
        for row in rows {
            let before = try indexes[row.id].map { try KeyedArchiver.archivedData(withRootObject: store.allItems[$0]) }
            merge.append(AgreementLog.MergedItem(key: row.id, before: before, after: row.archive))
        }
        let positions = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.position) })
        let read = backend.read(rows)
        // Not kept, it is not taken: the rows stay to be taken in the next round.
        let previous = backend.accept(rows, read: read)
        do {
            try await keepAgreement(merge: merge)
        } catch {
            backend.unaccept(previous)
            throw error
        }
        try await apply(merge, positions: positions, read: read)
        return true
    }

    /// Does again the merge the last run kept but the store had not received.
    private func finishInterruptedMerge() async {
        guard !interruptedMerge.isEmpty else { return }
        let merge = interruptedMerge
        interruptedMerge = []
        do {
            var positions: [String: Double] = [:]
            for merged in merge { positions[merged.key] = backend.agreedPosition(of: merged.key) }
            if try await apply(merge, positions: positions) {
                log("Finished writing the merge with the database that the last stop interrupted")
            }
        } catch {
            // Tried again before the next round, and kept by any checkpoint meanwhile.
            interruptedMerge = merge
            log("Could not finish the merge the last stop interrupted: \(error)")
        }
    }

    /// Gives the store each item of `merge` it still holds as it was before, at its
    /// `positions` among the agreed ones (an item with none keeps its place, or goes
    /// last): a removal, an edit, a move or an insert each. An item changed here
    /// meanwhile keeps the change, which the next push merges. Then notes that the
    /// store has the merge. `read` has the items of `merge` already decoded, with their
    /// archives as this model writes them. Returns whether anything changed.
    @discardableResult
    private func apply(
        _ merge: [AgreementLog.MergedItem], positions: [String: Double],
        read: [String: (item: Model, archive: Data)] = [:]
    ) async throws -> Bool {
        var changed = false
        // Where each item was when the merge began: an item not there is not looked
        // for, so that a first sync of many items costs each one insert.
        var wasAt: [String: Int] = [:]
        for (index, item) in store.allItems.enumerated() {
            wasAt[String(describing: item.id)] = wasAt[String(describing: item.id)] ?? index
        }
        func index(of key: String) -> Int? {
            guard let hint = wasAt[key] else { return nil }
            let items = store.allItems
            if items.indices.contains(hint), String(describing: items[hint].id) == key { return hint }
            return items.firstIndex { String(describing: $0.id) == key }
        }
        // Removals first: an item about to go has no agreed place to insert beside.
        for merged in merge.filter({ $0.after == nil }) + merge.filter({ $0.after != nil }) {
            let found = index(of: merged.key)
            let current = try found.map { try KeyedArchiver.archivedData(withRootObject: store.allItems[$0]) }
            guard current == merged.before else { continue }
            guard let after = merged.after else {
                if let found { store.remove(at: found) }
                changed = changed || found != nil
                continue
            }
            guard
                let item = try read[merged.key]?.item
                    ?? KeyedUnarchiver.unarchivedStoredObject(ofClass: Model.self, from: after)
            else { continue }
            var target = positions[merged.key].map { insertionIndex(for: merged.key, at: $0) } ?? found ?? store.count
            if let found {
                if target > found { target -= 1 }
                // A row that adds only fields this model does not know changes nothing here.
                var edited = current != after
                if edited {
                    edited =
                        try read[merged.key]?.archive ?? KeyedArchiver.archivedData(withRootObject: item) != current
                }
                if edited { store.replace(at: found, with: item) }
                if target != found { store.move(from: found, to: target) }
                changed = changed || edited || target != found
            } else {
                store.insert(item, at: target)
                changed = true
            }
        }
        if changed {
            try await store.flush()
            onChangeElsewhere?()
        }
        try await agreement.keep(change: nil, merge: [])
        return changed
    }

    /// Where an item at `position` goes: after the last item that sorts before it by
    /// agreed position, or that is not agreed yet (made here, on its way to the
    /// database), searched from the end, where new items usually go.
    private func insertionIndex(for id: String, at position: Double) -> Int {
        let items = store.allItems
        var index = items.count
        while index > 0 {
            let other = String(describing: items[index - 1].id)
            if other != id {
                guard let agreed = backend.agreedPosition(of: other), (position, id) < (agreed, other) else { break }
            }
            index -= 1
        }
        return index
    }
}
