import AppStores
import Foundation
import Locking
import PostgresNIO

/// One item of a save: its id and its keyed archive.
struct ArchivedItem: Sendable {
    var id: String
    var archive: Data
}

/// The items a save looks at.
enum SaveScope: Sendable {
    /// Every item, in order: any may have changed, and those missing were deleted.
    case every([ArchivedItem])
    /// These items only, at these positions, and these deleted: the changes the
    /// store's journal named, so that a save costs the change.
    case some([ArchivedItem], positions: [Double], deleted: [String])
}

/// This process's side of a shared item store: what it last read of the table, what
/// the store's items in memory were loaded from, and the saves it makes. Knows
/// nothing of the items' type, which ``PostgresItemStoreBackend`` handles.
final class SharedItemReplica: Sendable {
    let table: SharedItemTable
    let clock: HybridLogicalClock
    let mergePolicy: MergePolicy
    /// How long the table keeps a deletion; a replica away for longer reads the whole
    /// store, and its changes to items whose deletion was forgotten meanwhile are dropped.
    let tombstoneRetention: Duration
    let onConflict: @Sendable (RecordConflict) -> Void
    /// An archive as this process's model reads it: the item decoded from it, archived
    /// again; `nil` when it holds none. Rows another version of the app wrote may have
    /// fields this model does not know, or lack one it writes (as `nil`): read here,
    /// they are the item memory holds, and no change.
    let readHere: @Sendable (Data) -> Data?
    private let state = Locked(State())

    struct State {
        /// The table's rows of the store, as of change tag `readThrough`. After a restart
        /// from an agreement, only those read since (``mirrorIsPartial``): a row not in
        /// it is then as memory holds it (``State/base``), and read by id when a save
        /// needs it.
        var server: [String: SharedItemRecord] = [:]
        var readThrough: Int64 = 0
        var mirrorIsPartial = false
        /// Whether a read since the start or the restore reached the table's last rows.
        var hasRead = false
        /// Each item as the store's items in memory have it, with the change tag of the
        /// row this process last knew to be consistent with it: as loaded, or as
        /// saved from here. A row with another tag was written by someone else since.
        var base: [String: SharedItemRecord] = [:]
        /// Items whose row holds a version the items in memory do not: others' saves,
        /// or merges made here.
        var staleIDs: Set<String> = []
        var memoryIsStale: Bool { !staleIDs.isEmpty }
        /// Items whose agreed row or offer changed since the agreement was last taken
        /// (``takeAgreementChange()``); with `agreementIsNew`, every item's did.
        var agreementChanges: Set<String> = []
        var agreementIsNew = false
        /// When each change not yet saved was first offered to a save: the time it
        /// counts for in merges, however many saves fail or are refused before one
        /// succeeds.
        var editStamps: [String: (archive: Data?, stamp: HybridTimestamp)] = [:]
        /// Whether changes offered may have been saved already, by a save whose commit
        /// was not recorded: the process stopped before it could, or the save failed
        /// after its COMMIT reached the server. The next save reads the table first and
        /// takes those rows as agreed (``confirmOffers()``).
        var offersUnconfirmed = false
        /// Items whose deletion the table forgot before this process read it (they were
        /// missing from a read of the whole store): the deletion stands against any
        /// change made here, as their photos are gone with it.
        var forgotten: Set<String> = []

        /// Items agreed as this model reads their rows, which hold more (fields it does
        /// not know), with their rows' change tags: a restart reads them again, since
        /// another version of the app may read more of them.
        var trimmed: [String: Int64] = [:]

        /// The change tag through which memory holds every row (``base``) as any model
        /// would: the rows read, but those memory has yet to take and those it holds
        /// trimmed. What a restart may read on from.
        var agreedThrough: Int64 {
            let stale = staleIDs.lazy.map { (self.server[$0]?.changeTag ?? 1) - 1 }.min() ?? readThrough
            return min(readThrough, stale, (trimmed.values.min() ?? Int64.max) - 1)
        }

        /// Those of `ids` the mirror lacks, when it holds only the rows read since a
        /// restart: rows memory holds as agreed, to read by id (``mirror(_:)``).
        func unmirrored(_ ids: some Sequence<String>) -> [String] {
            mirrorIsPartial ? ids.filter { server[$0] == nil } : []
        }

        /// Takes rows read by id into the mirror, unless a later read put them there.
        mutating func mirror(_ records: [SharedItemRecord]) {
            for record in records where server[record.id] == nil { server[record.id] = record }
        }

        /// Memory holds `row` as `held` (the row as this model reads it, or a version
        /// of its own that the row holds).
        mutating func agree(_ row: SharedItemRecord, held: SharedItemRecord) {
            base[row.id] = held
            trimmed[row.id] = held.archive == row.archive ? nil : row.changeTag
        }
    }

    init(
        table: SharedItemTable, clock: HybridLogicalClock, mergePolicy: MergePolicy, tombstoneRetention: Duration,
        onConflict: @escaping @Sendable (RecordConflict) -> Void,
        readHere: @escaping @Sendable (Data) -> Data? = { $0 }
    ) {
        self.readHere = readHere
        self.table = table
        self.clock = clock
        self.mergePolicy = mergePolicy
        self.tombstoneRetention = tombstoneRetention
        self.onConflict = onConflict
    }

    /// The store's items in memory are now `records`.
    func loaded(_ records: [SharedItemRecord]) {
        state.withLock { state in
            (state.base, state.trimmed) = ([:], [:])
            for record in records { state.agree(record, held: heldInMemory(record)) }
            state.staleIDs = []
            state.editStamps = [:]
            state.offersUnconfirmed = false
            state.agreementIsNew = true
        }
    }

    /// The rows that hold versions memory does not (added, changed or deleted
    /// elsewhere, or merged here), ordered by position. After a restart, the first
    /// read is of the rows written since what was agreed (``State/agreedThrough``), or
    /// of the whole store without an agreement, and finds every row memory lacks.
    func staleRecords() -> [SharedItemRecord] {
        state.withLock { state in
            state.staleIDs.compactMap { state.server[$0] }.sorted { ($0.position, $0.id) < ($1.position, $1.id) }
        }
    }

    /// Memory now holds the rows of `ids` as the mirror has them: they are agreed.
    /// `held` has the archives of those already read as this model reads them
    /// (``readHere``), which is not done again. Returns what was agreed for them before.
    func accept(_ ids: [String], held: [String: Data] = [:]) -> [String: SharedItemRecord?] {
        state.withLock { state in
            var previous: [String: SharedItemRecord?] = [:]
            for id in ids {
                guard let row = state.server[id] else { continue }
                previous[id] = state.base[id]
                let archive = held[id]
                state.agree(
                    row, held: archive.map { archive in modified(row) { $0.archive = archive } } ?? heldInMemory(row))
                state.staleIDs.remove(id)
                state.agreementChanges.insert(id)
            }
            return previous
        }
    }

    /// Memory did not take the rows an ``accept(_:held:)`` named after all: they are agreed
    /// as they were, and stale.
    func unaccept(_ previous: [String: SharedItemRecord?]) {
        state.withLock { state in
            for (id, record) in previous {
                state.base[id] = record
                state.staleIDs.insert(id)
                state.agreementChanges.insert(id)
            }
        }
    }

    /// The agreed position of each of `ids` that memory holds (not deleted).
    func agreedPositions(of ids: some Sequence<String>) -> [String: Double] {
        state.withLock { state in
            var positions: [String: Double] = [:]
            for id in ids { if let row = state.base[id], !row.isDeleted { positions[id] = row.position } }
            return positions
        }
    }

    /// What this process agreed with the table last, and when each change not yet
    /// saved was first offered: what a save is a change from. Kept across restarts by
    /// ``restore(_:)``, so that changes made while the database was away are saved, and
    /// merged, as changes from what was last agreed.
    struct Agreement: Codable, Sendable {
        struct Edit: Codable, Sendable {
            var id: String
            var archive: Data?
            var stamp: HybridTimestamp
        }
        var base: [SharedItemRecord]
        var edits: [Edit]
        /// ``State/agreedThrough``; `nil` in agreements kept before it was: a restart
        /// then reads the whole store.
        var readThrough: Int64?
        /// The store it was agreed with; `nil` in agreements kept before it was named.
        var store: String?
    }

    var agreement: Agreement { state.withLock { agreement(of: $0) } }

    private func agreement(of state: State) -> Agreement {
        Agreement(
            base: state.base.values.sorted { $0.id < $1.id },
            edits: state.editStamps.map { Agreement.Edit(id: $0.key, archive: $0.value.archive, stamp: $0.value.stamp) }
                .sorted { $0.id < $1.id },
            readThrough: state.agreedThrough, store: table.store)
    }

    func restore(_ agreement: Agreement, changes: [AgreementChange] = []) {
        for record in agreement.base { clock.receive(record.stamps.latest) }
        for change in changes { for record in change.base { clock.receive(record.stamps.latest) } }
        state.withLock { state in
            state.base = Dictionary(agreement.base.map { ($0.id, $0) }) { first, _ in first }
            state.editStamps = Dictionary(agreement.edits.map { ($0.id, ($0.archive, $0.stamp)) }) { first, _ in first }
            var readThrough = agreement.readThrough
            for change in changes {
                for record in change.base { state.base[record.id] = record }
                for id in change.withdrawnEdits { state.editStamps[id] = nil }
                for edit in change.edits { state.editStamps[edit.id] = (edit.archive, edit.stamp) }
                readThrough = change.readThrough ?? readThrough
            }
            // Read on from there: the rows before it are as memory holds them.
            (state.server, state.staleIDs) = ([:], [])
            (state.readThrough, state.mirrorIsPartial) = (readThrough ?? 0, readThrough != nil)
            state.hasRead = false
            state.offersUnconfirmed = !state.editStamps.isEmpty
            state.agreementChanges = []
            state.agreementIsNew = false
        }
    }

    /// What changed in the ``agreement`` since it was last taken: the rows agreed and
    /// the offers made or withdrawn since, item by item, so that keeping it costs the
    /// change, not the store.
    struct AgreementChange: Codable, Sendable {
        var base: [SharedItemRecord] = []
        var edits: [Agreement.Edit] = []
        var withdrawnEdits: [String] = []
        /// ``State/agreedThrough`` now; kept with the changes, never alone.
        var readThrough: Int64?
        var isEmpty: Bool { base.isEmpty && edits.isEmpty && withdrawnEdits.isEmpty }
    }

    /// What ``takeAgreementChange()`` took was not kept: the next take is the whole
    /// agreement, which holds it.
    func agreementNotKept() {
        state.withLock { $0.agreementIsNew = true }
    }

    /// The agreement whole when it was loaded anew since last taken, else what changed
    /// in it; either is then taken.
    func takeAgreementChange() -> (whole: Agreement?, change: AgreementChange) {
        state.withLock { state in
            defer {
                state.agreementIsNew = false
                state.agreementChanges = []
            }
            if state.agreementIsNew { return (agreement(of: state), AgreementChange()) }
            var change = AgreementChange(readThrough: state.agreedThrough)
            for id in state.agreementChanges.sorted() {
                if let row = state.base[id] { change.base.append(row) }
                if let edit = state.editStamps[id] {
                    change.edits.append(Agreement.Edit(id: id, archive: edit.archive, stamp: edit.stamp))
                } else {
                    change.withdrawnEdits.append(id)
                }
            }
            return (nil, change)
        }
    }

    /// Records the changes a save of `items` would write as offered, with their times,
    /// so that an ``agreement`` kept now, before the save, names them. Offers not yet
    /// confirmed are settled first, before new ones take their place, when the table
    /// can be read. While it cannot, the changes are recorded all the same, so that
    /// each keeps the time it was first offered; the save, which needs the table
    /// anyway, settles the earlier offers. An item changed again meanwhile then loses
    /// its earlier offer: a row that offer wrote is taken for someone else's and
    /// merged as a conflict, which the later change wins.
    /// Returns how many changes it offered.
    @discardableResult
    func offer(_ scope: SaveScope, stamp: HybridTimestamp) async -> Int {
        if state.withLock({ $0.offersUnconfirmed }) { try? await confirmOffers() }
        return state.withLock { state in self.changes(in: scope, stamp: stamp, state: &state).count }
    }

    /// How many of `items` differ from what was last agreed with the table, deletions
    /// included: the changes a save has still to write.
    /// Offers not yet confirmed count as one: a save must read the table to settle them.
    func pendingCount(of items: [ArchivedItem]) -> Int {
        state.withLock { state in
            var copy = state
            let count = self.changes(in: .every(items), stamp: clock.last, state: &copy).count
            return state.offersUnconfirmed ? max(count, 1) : count
        }
    }

    /// The app has seen the server versions of `conflicts` and settled the items in
    /// memory: their next save is compared with those versions.
    func settle(_ conflicts: [RecordConflict]) {
        state.withLock { state in
            for conflict in conflicts {
                guard let tag = conflict.serverChangeTag.flatMap(Int64.init),
                    let server = state.server[conflict.recordID],
                    server.changeTag == tag
                else { continue }
                state.agree(server, held: heldInMemory(server))
                state.editStamps[conflict.recordID] = nil
                state.staleIDs.remove(conflict.recordID)
                state.agreementChanges.insert(conflict.recordID)
            }
        }
    }

    /// Reads the rows others wrote since the last read; returns whether the items in
    /// memory are now out of date.
    func refresh() async throws -> Bool {
        try await readNewRows()
        return state.withLock { $0.memoryIsStale }
    }

    /// Every row of the mirror, after reading those written since the last read (the
    /// whole store, when the mirror holds only those read since a restart).
    func readAllRows() async throws -> [SharedItemRecord] {
        state.withLock { state in
            guard state.mirrorIsPartial else { return }
            (state.readThrough, state.mirrorIsPartial) = (0, false)
        }
        try await readNewRows()
        return state.withLock { Array($0.server.values) }
    }

    /// Reads the rows written since the last read into the mirror, a query of
    /// ``SharedItemTable/rowsPerQuery`` rows at a time; returns how many queries it took.
    /// Should the table forget deletions past where the read began while it goes on (a
    /// save elsewhere compacts), the read starts again, as a read of the whole store.
    @discardableResult
    func readNewRows() async throws -> Int {
        try await table.prepare()
        let start = state.withLock { $0.readThrough }
        var fresh = SharedItemTable.Read(lastTag: start)
        var (queries, continuing) = (0, false)
        while true {
            let after = continuing ? fresh.pageEnd : start
            let page = try await table.database.withConnection { [continuing] connection in
                try await self.table.records(
                    after: after, limit: self.table.rowsPerQuery, continuing: continuing, on: connection)
            }
            queries += 1
            if continuing, !fresh.isWholeStore, let horizon = page.horizon, horizon > start {
                continuing = false
                continue
            }
            if continuing { fresh.append(page) } else { fresh = page }
            guard fresh.isPartial else { break }
            continuing = true
        }
        await table.quarantine(fresh.rejected)
        state.withLock { state in
            absorb(fresh, into: &state)
            state.hasRead = true
        }
        return queries
    }

    /// Takes a read of the table into the mirror, and reads on after its rows, the
    /// refused ones included. A read of the whole store after the table forgot
    /// deletions (``SharedItemTable/compact(deletedBefore:on:)``) lacks the rows of those
    /// items: each known here, last seen at or before the horizon, is deleted.
    private func absorb(_ read: SharedItemTable.Read, into state: inout State) {
        absorb(read.records, into: &state)
        state.readThrough = max(state.readThrough, read.lastTag)
        guard read.isWholeStore, let horizon = read.horizon else { return }
        let present = Set(read.records.map(\.id)).union(read.rejected.map(\.key))
        let known = Set(state.server.keys).union(state.base.keys)
        for id in known.subtracting(present) {
            guard let last = state.server[id] ?? state.base[id], last.changeTag <= horizon else { continue }
            state.forgotten.insert(id)
            guard !last.isDeleted else { continue }
            state.server[id] = SharedItemRecord(
                id: id, changeTag: horizon, position: last.position, archive: nil,
                stamps: FieldStamps(record: last.stamps.latest))
            state.readThrough = max(state.readThrough, horizon)
            if state.base[id] != state.server[id] { state.staleIDs.insert(id) }
        }
    }

    /// Takes `records` into the mirror, unless it holds a later version already: a read
    /// that started before a save here may finish after it.
    private func absorb(_ records: [SharedItemRecord], into state: inout State) {
        for record in records where record.changeTag > state.server[record.id]?.changeTag ?? 0 {
            state.server[record.id] = record
            state.readThrough = max(state.readThrough, record.changeTag)
            clock.receive(record.stamps.latest)
            if state.base[record.id] != record {
                state.staleIDs.insert(record.id)
            } else {
                state.staleIDs.remove(record.id)
            }
        }
    }

    /// One item changed since it was loaded, as the save would leave it.
    private struct Change {
        var id: String
        var archive: Data?
        var position: Double
        /// When the change was first offered to a save.
        var stamp: HybridTimestamp
    }

    /// Saves the items of `scope`, taken at `stamp`, in one transaction: writes those
    /// changed since they were loaded, settling conflicts by ``mergePolicy``.
    func commit(_ scope: SaveScope, stamp: HybridTimestamp) async throws {
        if state.withLock({ $0.offersUnconfirmed }) { try await confirmOffers() }
        // The first save after a start reads what was written since the agreement (the
        // whole store, without one) a page at a time first: the save's transaction then
        // reads only what was written meanwhile.
        if state.withLock({ !$0.hasRead }) { try await readNewRows() }
        let changes = state.withLock { state in self.changes(in: scope, stamp: stamp, state: &state) }
        guard !changes.isEmpty else { return }
        try await table.prepare()
        let plan: Plan
        let tags: [String: Int64]?
        let rejected: [RejectedRow]
        do {
            (plan, tags, rejected) = try await write(changes)
        } catch {
            // The transaction may have committed though its answer never came: the
            // server stopped, or the connection broke, just after COMMIT. The next save
            // reads the table first and takes as agreed each of these changes it finds
            // there, so that a delete of an item added here is pushed.
            state.withLock { $0.offersUnconfirmed = true }
            throw error
        }
        // Out of the transaction: a move that fails must not undo the save.
        await table.quarantine(rejected)
        guard let tags else {
            var error = StoreError(
                .conflict, "\(plan.conflicts.count) items were changed elsewhere since they were loaded")
            error.conflicts = plan.conflicts
            throw error
        }
        state.withLock { state in
            absorb(plan.writes.map { record in modified(record) { $0.changeTag = tags[record.id] ?? 0 } }, into: &state)
            for change in changes {
                state.editStamps[change.id] = nil
                state.agreementChanges.insert(change.id)
                guard let current = state.server[change.id] else { continue }
                if plan.dropped.contains(change.id) {
                    // Memory still has the item: it is out of date until loaded again.
                    state.agree(current, held: heldInMemory(current))
                    state.staleIDs.insert(change.id)
                    continue
                }
                // What memory holds, with the tag of what the table holds now: a later
                // save of an item merged here applies its changes to the merge.
                if current.position == change.position && holds(change.archive, row: current.archive) {
                    state.staleIDs.remove(change.id)
                } else {
                    state.staleIDs.insert(change.id)
                }
                state.agree(
                    current, held: modified(current) { ($0.archive, $0.position) = (change.archive, change.position) })
            }
        }
        for conflict in plan.conflicts { onConflict(conflict) }
    }

    /// One transaction: reads the rows written since the last read, plans `changes`
    /// against them and writes the plan, unless the policy refuses its conflicts (then
    /// nothing is written and no tags come back).
    private func write(
        _ changes: [Change]
    ) async throws -> (plan: Plan, tags: [String: Int64]?, rejected: [RejectedRow]) {
        try await table.database.withTransaction(logger: table.logger) { connection in
            try await self.table.lock(on: connection)
            let after = self.state.withLock { $0.readThrough }
            let fresh = try await self.table.records(after: after, on: connection)
            let unread = self.state.withLock { state in
                self.absorb(fresh, into: &state)
                return state.unmirrored(changes.map(\.id))
            }
            // Rows not written since what memory holds was agreed: read for the merge,
            // which keeps their fields this model does not know.
            let agreed = try await self.table.records(ids: unread, on: connection)
            let (server, base) = self.state.withLock { state in
                state.mirror(agreed.records)
                return (state.server, state.base)
            }
            let plan = try self.plan(changes, base: base, server: server)
            // Refused whole: the transaction wrote nothing.
            if !plan.conflicts.isEmpty && self.mergePolicy == .reportConflicts {
                return (plan, nil, fresh.rejected + agreed.rejected)
            }
            let tags = try await self.table.write(plan.writes, on: connection)
            try await self.table.compact(
                deletedBefore: HybridLogicalClock.wallClock() - self.tombstoneRetention.wholeMilliseconds,
                on: connection)
            return (plan, tags, fresh.rejected + agreed.rejected)
        }
    }

    /// After a save whose commit was not recorded (a restart from an agreement kept
    /// before it, or a save that failed): each offered change the table holds, as
    /// offered or merged with its time, was that save's. It is agreed now, so that a
    /// later change of it is a change from the process's own row (a delete is pushed,
    /// an edit is no conflict).
    private func confirmOffers() async throws {
        try await readNewRows()
        // A save whose commit was not recorded may have written at a tag the agreement
        // kept after it reads on from: read its rows by id.
        let unread = state.withLock { $0.unmirrored($0.editStamps.keys) }
        if !unread.isEmpty {
            let read = try await table.database.withConnection { connection in
                try await self.table.records(ids: unread, on: connection)
            }
            state.withLock { $0.mirror(read.records) }
        }
        state.withLock { state in
            for (id, offer) in state.editStamps {
                guard let row = state.server[id],
                    row.archive == offer.archive || row.stamps.fields.values.contains(offer.stamp)
                        || row.stamps.record == offer.stamp
                else { continue }
                state.agree(row, held: heldInMemory(row))
                state.editStamps[id] = nil
                state.agreementChanges.insert(id)
            }
            state.offersUnconfirmed = false
        }
    }

    /// The items of `scope` changed (added, edited, moved, deleted) since they were
    /// loaded, each with the time of its first save; records those times for the saves
    /// to come.
    private func changes(in scope: SaveScope, stamp: HybridTimestamp, state: inout State) -> [Change] {
        switch scope {
        case .every(let items):
            let previous = state.base.compactMapValues { $0.isDeleted ? nil : $0.position }
            let positions = ItemPositions.assign(to: items.map(\.id), previous: previous)
            let kept = Set(items.map(\.id))
            let deleted = state.base.filter { !$0.value.isDeleted && !kept.contains($0.key) }.map(\.key)
            return changes(in: items, at: positions, deleted: deleted, stamp: stamp, state: &state)
        case .some(let items, let positions, let deleted):
            let agreed = deleted.filter { state.base[$0].map { !$0.isDeleted } ?? false }
            return changes(in: items, at: positions, deleted: agreed, stamp: stamp, state: &state)
        }
    }

    private func changes(
        in items: [ArchivedItem], at positions: [Double], deleted: [String], stamp: HybridTimestamp,
        state: inout State
    ) -> [Change] {
        let base = state.base
        var changes: [Change] = []
        func add(_ id: String, _ archive: Data?, _ position: Double) {
            let first = state.editStamps[id].flatMap { $0.archive == archive ? $0.stamp : nil } ?? stamp
            state.editStamps[id] = (archive, first)
            state.agreementChanges.insert(id)
            changes.append(Change(id: id, archive: archive, position: position, stamp: first))
        }
        for (index, item) in items.enumerated() {
            if let ancestor = base[item.id], ancestor.position == positions[index],
                holds(item.archive, row: ancestor.archive)
            {
                continue
            }
            add(item.id, item.archive, positions[index])
        }
        for id in deleted { if let ancestor = base[id] { add(id, nil, ancestor.position) } }
        return changes
    }

    private struct Plan {
        var writes: [SharedItemRecord] = []
        var conflicts: [RecordConflict] = []
        /// Changes to items whose deletion was forgotten: not written.
        var dropped: Set<String> = []
    }

    /// What saving `changes` writes, given the rows as loaded and as they are now.
    private func plan(
        _ changes: [Change], base: [String: SharedItemRecord], server: [String: SharedItemRecord]
    ) throws -> Plan {
        var plan = Plan()
        let forgotten = state.withLock { $0.forgotten }
        for change in changes {
            // What memory was loaded from, as this model reads it, so that a field the
            // model adds or leaves out is no change made here.
            let ancestor = base[change.id].map { row in
                modified(row) { $0.archive = $0.archive.flatMap(readHere) ?? $0.archive }
            }
            if forgotten.contains(change.id), let current = server[change.id], current.isDeleted,
                ancestor?.changeTag != current.changeTag
            {
                // Deleted elsewhere longer ago than the retention, its photo with it: the
                // deletion stands whatever the policy, and is reported.
                plan.conflicts.append(
                    RecordConflict(
                        recordID: change.id, ancestor: ancestor?.archive, local: change.archive, server: nil,
                        serverChangeTag: String(current.changeTag)))
                plan.dropped.insert(change.id)
                continue
            }
            guard let current = server[change.id] else {
                let stamps = try RecordMerge.stamps(
                    ancestor: ancestor, local: change.archive, position: change.position, stamp: change.stamp,
                    onto: ancestor)
                plan.writes.append(record(change, stamps: stamps))
                continue
            }
            // The table already holds this version (both sides deleted it, say).
            if holds(change.archive, row: current.archive) && (current.isDeleted || current.position == change.position)
            {
                continue
            }
            if let ancestor, current.changeTag == ancestor.changeTag {
                // Nobody else wrote it: the table holds what memory was loaded from, or a
                // merge saved from here that memory has not loaded yet, onto which the
                // change goes field by field.
                let rebased = try RecordMerge.apply(
                    ancestor: ancestor, local: change.archive, position: change.position, stamp: change.stamp,
                    onto: current)
                plan.writes.append(
                    record(
                        modified(change) { ($0.archive, $0.position) = (rebased.archive, rebased.position) },
                        stamps: rebased.stamps))
                continue
            }
            plan.conflicts.append(
                RecordConflict(
                    recordID: change.id, ancestor: ancestor?.archive, local: change.archive, server: current.archive,
                    serverChangeTag: String(current.changeTag)))
            let resolution = try RecordMerge.resolve(
                ancestor: ancestor, local: change.archive, position: change.position, server: current,
                stamp: change.stamp, policy: mergePolicy)
            if case .write(let archive, let position, let stamps) = resolution {
                plan.writes.append(
                    record(modified(change) { ($0.archive, $0.position) = (archive, position) }, stamps: stamps))
            }
        }
        return plan
    }

    /// `row` with its archive as memory holds it once loaded: as this model reads it.
    /// What is agreed is kept so (``State/base``), so that after an upgrade of the app
    /// the items memory kept are compared with what the model they were written by read,
    /// not with fields it never held.
    private func heldInMemory(_ row: SharedItemRecord) -> SharedItemRecord {
        guard let archive = row.archive, let held = readHere(archive), held != archive else { return row }
        return modified(row) { $0.archive = held }
    }

    /// Whether `row` holds what memory has as `local` (`nil`: deleted): the same bytes,
    /// or the same item as this model reads it.
    private func holds(_ local: Data?, row: Data?) -> Bool {
        guard let local, let row else { return local == nil && row == nil }
        return local == row || readHere(row) == local
    }

    private func record(_ change: Change, stamps: FieldStamps) -> SharedItemRecord {
        SharedItemRecord(
            id: change.id, changeTag: 0, position: change.position, archive: change.archive, stamps: stamps)
    }
}

private func modified<Value>(_ value: Value, _ change: (inout Value) -> Void) -> Value {
    var copy = value
    change(&copy)
    return copy
}
