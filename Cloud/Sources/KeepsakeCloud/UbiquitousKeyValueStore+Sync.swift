import Dispatch
import PropertyList
import Synchronization

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
    /// values changed. The file is written off the cooperative pool.
    /// - Throws: ``UbiquitousStoreError``: `.syncFailed`, `.storageFailed`.
    public func sync(with service: some KeyValueSyncService) async throws(UbiquitousStoreError) {
        let pending = state.withLock { state in state.file.log.filter { state.file.pending.contains($0.timestamp) } }
        if !pending.isEmpty {
            do {
                try await service.push(pending)
            } catch {
                throw UbiquitousStoreError(.syncFailed, "cannot push \(pending.count) changes", underlyingError: error)
            }
            try await offThePool { () throws(UbiquitousStoreError) in
                try self.update { $0.pending.subtract(pending.map(\.timestamp)) }
            }
        }
        while true {
            let position = state.withLock { $0.file.position }
            let batch: (changes: [KeyValueChange], position: Int64)
            do {
                batch = try await service.changes(after: position)
            } catch {
                throw UbiquitousStoreError(.syncFailed, "cannot read changes", underlyingError: error)
            }
            if batch.position == position { return }
            let (keys, initial) = try await offThePool { () throws(UbiquitousStoreError) in
                try self.apply(batch.changes, position: batch.position)
            }
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

    /// Adds the new ones among `changes` (read from the service up to `position`) and
    /// returns the keys whose values changed, and whether these were the first
    /// changes ever read.
    private func apply(
        _ changes: [KeyValueChange], position: Int64
    ) throws(UbiquitousStoreError) -> (keys: [String], initial: Bool) {
        for change in changes { clock.receive(change.timestamp) }
        return try state.withLock { (state) throws(UbiquitousStoreError) in
            var file = state.file
            let known = Set(file.log.map(\.timestamp))
            let fresh = changes.filter { !known.contains($0.timestamp) }.sorted { $0.timestamp < $1.timestamp }
            let initial = file.position == 0
            file.position = position
            file.lastTimestamp = clock.last
            var values = state.values
            if let first = fresh.first {
                file.log = Self.merged(file.log, fresh)
                if let latest = values.latest, first.timestamp < latest {
                    // Earlier than what was applied: the limits may decide differently now.
                    values = KeyValueReplay.replaying(file.log, limits: limits)
                } else {
                    for change in fresh { values.apply(change) }
                }
            }
            try file.save(named: fileName, in: directory)
            let keys = Set(state.values.entries.keys).union(values.entries.keys).filter {
                state.values.entries[$0]?.value != values.entries[$0]?.value
            }
            state.file = file
            state.values = values
            return (keys.sorted(), initial && !fresh.isEmpty)
        }
    }

    /// Two logs in timestamp order, as one.
    private static func merged(_ left: [KeyValueChange], _ right: [KeyValueChange]) -> [KeyValueChange] {
        var result: [KeyValueChange] = []
        result.reserveCapacity(left.count + right.count)
        var (i, j) = (0, 0)
        while i < left.count || j < right.count {
            if j == right.count || (i < left.count && left[i].timestamp < right[j].timestamp) {
                result.append(left[i])
                i += 1
            } else {
                result.append(right[j])
                j += 1
            }
        }
        return result
    }

    /// Changes the file, durably, and the state with it.
    private func update(_ body: (inout UbiquitousStoreFile) -> Void) throws(UbiquitousStoreError) {
        try state.withLock { (state) throws(UbiquitousStoreError) in
            var file = state.file
            body(&file)
            try file.save(named: fileName, in: directory)
            state.file = file
        }
    }

    /// Runs `body`, which writes the file, on a Dispatch worker thread, off the cooperative pool.
    private func offThePool<Result: Sendable>(
        _ body: @escaping @Sendable () throws(UbiquitousStoreError) -> Result
    ) async throws(UbiquitousStoreError) -> Result {
        let result: Swift.Result<Result, UbiquitousStoreError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Swift.Result(catching: body)) }
        }
        return try result.get()
    }
}
