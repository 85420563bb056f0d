import AppStores
import Foundation
import PostgresNIO
import Synchronization

/// One item of a save: its id and its keyed archive.
struct ArchivedItem: Sendable {
    var id: String
    var archive: Data
}

/// This process's side of a shared item store: what it last read of the table, what
/// the store's items in memory were loaded from, and the saves it makes. Knows
/// nothing of the items' type, which ``PostgresItemStoreBackend`` handles.
final class SharedItemReplica: Sendable {
    let table: SharedItemTable
    let clock: HybridLogicalClock
    let mergePolicy: MergePolicy
    let onConflict: @Sendable (RecordConflict) -> Void
    private let state = Mutex(State())

    struct State {
        /// The table's rows of the store, as of change tag `readThrough`.
        var server: [String: SharedItemRecord] = [:]
        var readThrough: Int64 = 0
        /// Each item as the store's items in memory have it: as last loaded, or as
        /// last saved from here (then with the tag of what the table holds now).
        var base: [String: SharedItemRecord] = [:]
        /// Whether the table holds versions the items in memory do not: others'
        /// saves, or merges made here.
        var memoryIsStale = false
    }

    init(
        table: SharedItemTable, clock: HybridLogicalClock, mergePolicy: MergePolicy,
        onConflict: @escaping @Sendable (RecordConflict) -> Void
    ) {
        self.table = table
        self.clock = clock
        self.mergePolicy = mergePolicy
        self.onConflict = onConflict
    }

    /// The store's items in memory are now `records`.
    func loaded(_ records: [SharedItemRecord]) {
        state.withLock { state in
            state.base = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
            state.memoryIsStale = false
        }
    }

    /// Reads the rows others wrote since the last read; returns whether the items in
    /// memory are now out of date.
    func refresh() async throws -> Bool {
        _ = try await readNewRows()
        return state.withLock { $0.memoryIsStale }
    }

    /// Reads the rows written since the last read into the mirror; returns every row.
    func readNewRows() async throws -> [SharedItemRecord] {
        try await table.prepare()
        let after = state.withLock { $0.readThrough }
        let fresh = try await table.client.withConnection { connection in
            try await self.table.records(after: after, on: connection)
        }
        return state.withLock { state in
            absorb(fresh, into: &state)
            if !fresh.isEmpty { state.memoryIsStale = true }
            return Array(state.server.values)
        }
    }

    private func absorb(_ records: [SharedItemRecord], into state: inout State) {
        for record in records {
            state.server[record.id] = record
            state.readThrough = max(state.readThrough, record.changeTag)
            clock.receive(record.stamps.latest)
        }
    }

    /// One item as the save would leave it.
    private struct Change {
        var id: String
        var archive: Data?
        var position: Double
    }

    /// Saves `items`, made at `stamp`, in one transaction: writes the items changed
    /// since they were loaded, settling conflicts by ``mergePolicy``.
    func commit(_ items: [ArchivedItem], stamp: HybridTimestamp) async throws {
        try await table.prepare()
        let written: (plan: Plan, tags: [String: Int64]?) = try await table.client.withTransaction(
            logger: table.logger
        ) { connection in
            try await self.table.lock(on: connection)
            let after = self.state.withLock { $0.readThrough }
            let fresh = try await self.table.records(after: after, on: connection)
            let (server, base) = self.state.withLock { state in
                self.absorb(fresh, into: &state)
                if !fresh.isEmpty { state.memoryIsStale = true }
                return (state.server, state.base)
            }
            let plan = try self.plan(items, stamp: stamp, base: base, server: server)
            // Refused whole: the transaction wrote nothing.
            if !plan.conflicts.isEmpty && self.mergePolicy == .reportConflicts { return (plan, nil) }
            let tags = try await self.table.write(plan.writes, on: connection)
            return (plan, tags)
        }
        let (plan, tags) = written
        guard let tags else {
            var error = StoreError(
                .conflict, "\(plan.conflicts.count) items were changed elsewhere since they were loaded")
            error.conflicts = plan.conflicts
            throw error
        }
        state.withLock { state in
            absorb(plan.writes.map { record in modified(record) { $0.changeTag = tags[record.id] ?? 0 } }, into: &state)
            for change in plan.changes {
                guard let current = state.server[change.id] else { continue }
                // What memory holds, with the tag of what the table holds now: a later
                // save of an item merged here is then compared with the merged version.
                let base = modified(current) {
                    $0.archive = change.archive
                    $0.position = change.position
                }
                if base != current { state.memoryIsStale = true }
                state.base[change.id] = base
            }
        }
        for conflict in plan.conflicts { onConflict(conflict) }
    }

    private struct Plan {
        var changes: [Change] = []
        var writes: [SharedItemRecord] = []
        var conflicts: [RecordConflict] = []
    }

    /// What a save of `items` writes, given the rows as loaded and as they are now.
    private func plan(
        _ items: [ArchivedItem], stamp: HybridTimestamp, base: [String: SharedItemRecord],
        server: [String: SharedItemRecord]
    ) throws -> Plan {
        let previous = base.compactMapValues { $0.isDeleted ? nil : $0.position }
        let positions = ItemPositions.assign(to: items.map(\.id), previous: previous)
        var plan = Plan()
        for (index, item) in items.enumerated() {
            if let ancestor = base[item.id], ancestor.archive == item.archive, ancestor.position == positions[index] {
                continue
            }
            plan.changes.append(Change(id: item.id, archive: item.archive, position: positions[index]))
        }
        let kept = Set(items.map(\.id))
        for (id, ancestor) in base where !ancestor.isDeleted && !kept.contains(id) {
            plan.changes.append(Change(id: id, archive: nil, position: ancestor.position))
        }
        for change in plan.changes {
            let ancestor = base[change.id]
            guard let current = server[change.id], current != ancestor else {
                let stamps = try RecordMerge.stamps(
                    ancestor: ancestor, local: change.archive, position: change.position, stamp: stamp, onto: ancestor)
                plan.writes.append(record(change, stamps: stamps))
                continue
            }
            plan.conflicts.append(
                RecordConflict(
                    recordID: change.id, ancestor: ancestor?.archive, local: change.archive, server: current.archive))
            let resolution = try RecordMerge.resolve(
                ancestor: ancestor, local: change.archive, position: change.position, server: current, stamp: stamp,
                policy: mergePolicy)
            if case .write(let archive, let position, let stamps) = resolution {
                plan.writes.append(record(Change(id: change.id, archive: archive, position: position), stamps: stamps))
            }
        }
        return plan
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
