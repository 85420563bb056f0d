@_spi(Journal) import AppSandbox
import Foundation
import Locking
import PropertyList

extension UbiquitousKeyValueStore {
    /// Corresponds to `synchronize()`. Every change is already durable here when
    /// ``set(_:forKey:)`` returns; this asks a running ``run(with:retryInterval:)`` to
    /// exchange changes now, and returns `true`.
    @discardableResult
    public func synchronize() -> Bool {
        state.withLock { _ = $0.wake?.yield() }
        return true
    }

    /// Pushes the changes made here that the service does not have yet (they stay
    /// queued if it fails), then reads and applies what other replicas changed since
    /// the last sync, posting ``didChangeExternallyNotification`` for the keys whose
    /// values changed once the change is durable.
    /// - Throws: ``UbiquitousStoreError``: `.syncFailed`, `.storageFailed`.
    public func sync(with service: some KeyValueSyncService) async throws(UbiquitousStoreError) {
        let pending = state.withLock { state in state.file.log.filter { state.file.pending.contains($0.timestamp) } }
        if !pending.isEmpty {
            do {
                try await service.push(pending)
            } catch {
                throw UbiquitousStoreError(.syncFailed, "cannot push \(pending.count) changes", underlyingError: error)
            }
            try await commit { file throws(UbiquitousStoreError) in
                let pushed = pending.map(\.timestamp)
                file.pending.subtract(pushed)
                file.lastPush = Date()
                return try file.journalRecord([], pushed: pushed)
            }
        }
        while true {
            let position = state.withLock { $0.file.position }
            let batch: KeyValueBatch
            do {
                batch = try await service.changes(after: position)
            } catch {
                throw UbiquitousStoreError(.syncFailed, "cannot read changes", underlyingError: error)
            }
            if batch.position == position { return }
            let (keys, initial) = try await apply(batch)
            if !keys.isEmpty { post(initial ? .initialSyncChange : .serverChange, keys: keys) }
        }
    }

    /// Keeps the store in step with `service` until the task is cancelled: pushes each
    /// change made here, and applies others' as the service reports them. A failed
    /// exchange is tried again after `retryInterval`; changes made meanwhile stay
    /// queued in the store's file, across restarts too.
    public func run(with service: some KeyValueSyncService, retryInterval: Duration = .seconds(1)) async {
        let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        state.withLock { $0.wake = wake }
        defer { state.withLock { $0.wake = nil } }
        wake.yield()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await service.watch { wake.yield() } }
            group.addTask {
                for await _ in wakeups {
                    while !Task.isCancelled {
                        do {
                            try await self.sync(with: service)
                            break
                        } catch {
                            try? await Task.sleep(for: retryInterval)
                        }
                    }
                }
            }
            await withTaskCancellationHandler {
                await group.next()
            } onCancel: {
                wake.finish()
            }
            group.cancelAll()
        }
    }

    /// Adds the new changes of `batch` and returns, once that is durable, the keys whose
    /// values changed, and whether this was an initial sync: the first changes ever
    /// read, or the whole store read anew after too long away (what the replica held
    /// is then replaced, but for its own changes not yet pushed). A change no store
    /// could hold (a key or value over the limits) is not kept.
    private func apply(_ batch: KeyValueBatch) async throws(UbiquitousStoreError) -> (keys: [String], initial: Bool) {
        let (changes, position) = (batch.changes, batch.position)
        for change in changes { clock.receive(change.timestamp) }
        let limits = limits
        let (ticket, keys, initial) = try state.withLock { (state) throws(UbiquitousStoreError) in
            var file = state.file
            if batch.isWholeStore { file.log.removeAll { !file.pending.contains($0.timestamp) } }
            let known = Set(file.log.map(\.timestamp))
            let fresh = changes.filter {
                !known.contains($0.timestamp) && Self.permanentRefusal(of: $0, limits: limits) == nil
            }.sorted { $0.timestamp < $1.timestamp }
            let initial = file.position == 0
            file.position = position
            file.lastTimestamp = clock.last
            let kept = fresh.filter { file.merge($0, pending: false) }
            let record =
                batch.isWholeStore
                ? try file.journalRecord(
                    file.log.map { ($0, file.pending.contains($0.timestamp)) }, position: position, replacing: true)
                : try file.journalRecord(kept.map { ($0, false) }, position: position)
            let ticket = try append(record)
            let before = state.values.entries
            state.file = file
            if !kept.isEmpty || batch.isWholeStore { state.replay(limits: limits) }
            let after = state.values.entries
            let keys = Set(before.keys).union(after.keys).filter { before[$0]?.value != after[$0]?.value }
            checkpointIfLarge(file)
            return (ticket, keys.sorted(), (initial && !fresh.isEmpty) || batch.isWholeStore)
        }
        try await waitUntilDurable(ticket)
        return (keys, initial)
    }

    /// Changes the file with `body`, which returns the journal record of the change,
    /// and returns once that is durable.
    private func commit(
        _ body: (inout UbiquitousStoreFile) throws(UbiquitousStoreError) -> Data
    ) async throws(UbiquitousStoreError) {
        let ticket = try state.withLock { (state) throws(UbiquitousStoreError) in
            var file = state.file
            let ticket = try append(body(&file))
            state.file = file
            checkpointIfLarge(file)
            return ticket
        }
        try await waitUntilDurable(ticket)
    }

    private func waitUntilDurable(_ ticket: Journal.Ticket) async throws(UbiquitousStoreError) {
        do {
            try await journal.waitUntilDurable(ticket)
        } catch {
            throw rollBack(error)
        }
    }
}
