import AppRuntime
public import AppSandbox
public import Foundation
import Synchronization

/// What image format a blob's bytes are, from their first bytes.
public enum ImageKind: String, Sendable, Hashable {
    /// Starts with `FF D8 FF`.
    case jpeg
    /// Starts with `89 50 4E 47 0D 0A 1A 0A`.
    case png
    /// Anything else.
    case unknown

    public init(bytes: some Collection<UInt8>) {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if bytes.starts(with: png) {
            self = .png
        } else if bytes.starts(with: jpeg) {
            self = .jpeg
        } else {
            self = .unknown
        }
    }

    /// The media type to serve it as.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .unknown: "application/octet-stream"
        }
    }
}

/// Keeps blobs (photos) one file per key in a folder of the container, with a memory
/// cache in front, and acknowledges each change once it is durable in a journal.
///
/// Corresponds to the books' `ImageStore`: ``set(_:forKey:)`` stores a blob and caches
/// it, ``data(forKey:)`` reads it (the cache, then the disk), ``delete(forKey:)``
/// removes it. Each change is a record of a write-ahead journal beside the folder
/// (`.keepsake-images.journal`), and a call returns once its record is written and
/// `fsync`ed: concurrent changes share one `fsync` (group commit). The files, the books'
/// layout, are the checkpoint: written in the background once the journal passes
/// 16 MiB, on ``flush()``, and at start-up, each durably (temporary file, `fsync`,
/// rename, directory `fsync`), after which the journal starts afresh. Until then reads
/// answer from the journaled change (held in memory), and ``url(forKey:)`` writes the
/// files first. An acknowledged change survives `kill -9` at any point.
///
/// Keys are file names: one that is empty, holds `/` or NUL, is `.` or `..`, is longer
/// than 255 bytes or starts with the sandbox's reserved `.keepsake-` prefix is refused
/// with `.invalidKey`, and so is one that would resolve outside the folder (a symbolic
/// link pointing out). The cache empties on a memory warning. One store at a time holds
/// a folder's journal.
///
/// ```swift
/// let imageStore = try BlobStore(container: container)        // Documents/images/
/// try imageStore.set(jpeg, forKey: item.itemKey)               // durable on return
/// let photo = try imageStore.data(forKey: item.itemKey)
/// try imageStore.delete(forKey: item.itemKey)
/// ```
public final class BlobStore: Sendable {
    public let directory: SandboxDirectory
    /// The folder inside ``directory`` holding the files; `nil` for the directory itself
    /// (the seeds' layout: one file per key in `Documents/`).
    public let folder: String?
    public let cache: MemoryCache<String, Data>
    private let journal: Journal
    private let state = Mutex(State())
    /// The file beside the folder whose digest the journal names: written anew by each
    /// checkpoint, after the blobs.
    private let markerName: String

    private struct State {
        /// The changes whose records are in the journal and not yet in the files: the
        /// latest of each key, with its ticket (0 for those replayed at start-up).
        var unfiled: [String: (ticket: Journal.Ticket, change: BlobChange)] = [:]
        /// The checkpoint queued to file them, if one is.
        var checkpoint: Journal.Ticket?
        /// Counts changes, so that a read of a file racing one does not cache old bytes.
        var changes: UInt64 = 0
    }

    /// - Parameters:
    ///   - folder: a folder name in `directory` (created if missing), or `nil`.
    ///   - cache: the cache in front of the files; by default up to 64 MiB of blobs,
    ///     emptied on memory warnings.
    ///   - lockTimeout: how long to wait for another store on the same folder to close
    ///     its journal.
    /// - Throws: ``StoreError`` `.writeFailed` when the folder cannot be created or the
    ///   journal opened (also when another store keeps it past `lockTimeout`),
    ///   `.invalidKey` when `folder` is not a plain name, `.corruptArchive` for a journal
    ///   record that is no blob change.
    public init(
        container: AppContainer, directory: AppContainer.Directory = .documents, folder: String? = "images",
        cache: MemoryCache<String, Data> = MemoryCache(totalCostLimit: 64 << 20), lockTimeout: Duration = .seconds(2)
    ) throws(StoreError) {
        let directory = container.directory(directory)
        self.directory = directory
        self.folder = folder
        self.cache = cache
        let base = Self.reservedPrefix + (folder ?? "blobs")
        markerName = base + ".checkpoint"
        let markerName = markerName
        let recovery: JournalRecovery
        do {
            try directory.create()
            if let folder {
                try Self.validate(key: folder)
                try directory.createDirectory(folder)
            }
            (journal, recovery) = try Journal.open(base + ".journal", in: directory, lockTimeout: lockTimeout) {
                try directory.regularFileContents(markerName).map(CheckpointDigest.init(of:)) ?? .none
            }
        } catch let error as StoreError {
            throw error
        } catch let error as SandboxError {
            throw StoreError(.writeFailed, wrapping: error)
        } catch {
            throw StoreError(.writeFailed, "\(error)")
        }
        do {
            for record in recovery.records {
                let change = try BlobChange(decoding: record)
                state.withLock { $0.unfiled[change.key] = (0, change) }
            }
        } catch {
            journal.close()
            throw error
        }
        // What a crash left in the journal goes to the files now; if it cannot, reads
        // answer from the journal until a later checkpoint can.
        do {
            try flush()
        } catch {
            StandardStream.error.report("BlobStore: cannot write the journal's blobs to their files yet: \(error)")
        }
    }

    deinit { journal.close() }

    /// Stores `data` under `key`, replacing any previous blob; returns once the change
    /// is durable, then caches it. Corresponds to the seeds' `setImage(_:forKey:)`.
    /// - Throws: ``StoreError`` `.invalidKey`, `.writeFailed` (the previous blob is then
    ///   what the store holds).
    public func set(_ data: Data, forKey key: String) throws(StoreError) {
        let ticket = try stage(.set(key: key, data: data))
        try waitUntilDurable(ticket, key: key)
        stored(data, forKey: key, ticket: ticket)
    }

    /// ``set(_:forKey:)`` that suspends instead of blocking while the change is written.
    /// - Throws: ``StoreError``, as ``set(_:forKey:)``.
    public func set(_ data: Data, forKey key: String) async throws(StoreError) {
        let ticket = try stage(.set(key: key, data: data))
        try await waitUntilDurable(ticket, key: key)
        stored(data, forKey: key, ticket: ticket)
    }

    private func stored(_ data: Data, forKey key: String, ticket: Journal.Ticket) {
        state.withLock { state in
            // A later change of the key may have been made meanwhile: it owns the cache.
            if state.unfiled[key]?.ticket == ticket { cache.setObject(data, forKey: key, cost: data.count) }
        }
        checkpointIfLarge()
    }

    /// The blob under `key`, from the journal's latest change, the cache, or else the
    /// disk (then cached); `nil` when there is none. Corresponds to the seeds'
    /// `image(forKey:)`.
    /// - Throws: ``StoreError`` `.invalidKey`, `.readFailed`.
    public func data(forKey key: String) throws(StoreError) -> Data? {
        let path = try path(forKey: key)
        let (unfiled, changes) = state.withLock { ($0.unfiled[key]?.change, $0.changes) }
        if let unfiled { return unfiled.data }
        if let cached = cache.object(forKey: key) { return cached }
        let data: Data
        do throws(SandboxError) {
            data = try directory.contents(of: path)
        } catch .noSuchFile {
            return nil
        } catch {
            throw StoreError(.readFailed, wrapping: error, key: key)
        }
        state.withLock { state in
            // Cached only when no change came between the look and the read.
            if state.changes == changes { cache.setObject(data, forKey: key, cost: data.count) }
        }
        return data
    }

    /// Removes the blob under `key`, from the cache and the disk; returns once the
    /// removal is durable. A key with no blob is not an error. Corresponds to the
    /// seeds' `deleteImage(forKey:)`, which printed the error; this throws it.
    /// - Throws: ``StoreError`` `.invalidKey`, `.deleteFailed`.
    public func delete(forKey key: String) throws(StoreError) {
        do {
            try waitUntilDurable(try stage(.delete(key: key)), key: key)
        } catch {
            throw Self.deleteFailed(error)
        }
        checkpointIfLarge()
    }

    /// ``delete(forKey:)`` that suspends instead of blocking while the removal is written.
    /// - Throws: ``StoreError``, as ``delete(forKey:)``.
    public func delete(forKey key: String) async throws(StoreError) {
        do {
            try await waitUntilDurable(try stage(.delete(key: key)), key: key)
        } catch {
            throw Self.deleteFailed(error)
        }
        checkpointIfLarge()
    }

    private static func deleteFailed(_ error: StoreError) -> StoreError {
        guard error.code == .writeFailed else { return error }
        return StoreError(
            .deleteFailed, error.message, key: error.key, path: error.path, underlyingError: error.underlyingError)
    }

    /// Whether a blob is stored under `key` (an invalid key has none).
    public func contains(key: String) -> Bool {
        guard let path = try? path(forKey: key) else { return false }
        if let unfiled = state.withLock({ $0.unfiled[key]?.change }) { return unfiled.data != nil }
        return cache.object(forKey: key) != nil || directory.fileExists(path)
    }

    /// The format of the blob under `key`, from its first bytes; `nil` when there is none.
    /// - Throws: ``StoreError``, as ``data(forKey:)``.
    public func imageKind(forKey key: String) throws(StoreError) -> ImageKind? {
        try data(forKey: key).map { ImageKind(bytes: $0) }
    }

    /// The file URL of `key`'s blob, once the file holds every change made so far.
    /// Corresponds to the seeds' `imageURL(forKey:)`.
    /// - Throws: ``StoreError`` `.invalidKey`; `.writeFailed` when the files cannot be
    ///   brought up to date.
    public func url(forKey key: String) throws(StoreError) -> URL {
        let path = try path(forKey: key)
        if state.withLock({ $0.unfiled[key] != nil }) { try flush() }
        do {
            return try directory.url(for: path)
        } catch {
            throw StoreError(.invalidKey, wrapping: error, key: key)
        }
    }

    /// Every stored key, sorted.
    /// - Throws: ``StoreError`` `.readFailed`.
    public func allKeys() throws(StoreError) -> [String] {
        var keys: Set<String>
        do {
            keys = Set(try directory.contentsOfDirectory(folder))
        } catch {
            throw StoreError(.readFailed, wrapping: error)
        }
        for (key, entry) in state.withLock({ $0.unfiled }) {
            if entry.change.data == nil { keys.remove(key) } else { keys.insert(key) }
        }
        return keys.sorted()
    }

    /// Returns once the files hold every change made so far, and the journal is empty.
    /// Blocks the calling thread while the files are written.
    /// - Throws: ``StoreError`` `.writeFailed`.
    public func flush() throws(StoreError) {
        while let ticket = scheduleCheckpoint() {
            do {
                try journal.waitUntilDurableBlocking(ticket)
            } catch {
                throw StoreError(.writeFailed, wrapping: error)
            }
        }
    }

    // MARK: The journal

    /// Checks the key, then queues the change's record and makes it the key's latest;
    /// returns its ticket.
    private func stage(_ change: BlobChange) throws(StoreError) -> Journal.Ticket {
        let path = try path(forKey: change.key)
        if change.data != nil {
            // Refused now rather than when the file is written: a link pointing out.
            do {
                _ = try directory.url(for: path)
            } catch {
                throw StoreError(.writeFailed, wrapping: error, key: change.key)
            }
        }
        return try state.withLock { (state) throws(StoreError) -> Journal.Ticket in
            let ticket: Journal.Ticket
            do throws(SandboxError) {
                ticket = try journal.append(change.encoded())
            } catch {
                throw StoreError(.writeFailed, wrapping: error, key: change.key)
            }
            state.unfiled[change.key] = (ticket, change)
            state.changes += 1
            cache.removeObject(forKey: change.key)
            return ticket
        }
    }

    /// Waits for `ticket`'s record. When it failed, the journal is cut back to what is
    /// durable and the changes not in the files are read back from it, so that the
    /// store holds what a restart would find.
    private func waitUntilDurable(_ ticket: Journal.Ticket, key: String) throws(StoreError) {
        do {
            try journal.waitUntilDurableBlocking(ticket)
        } catch {
            rollBack()
            throw StoreError(.writeFailed, wrapping: error, key: key)
        }
    }

    private func waitUntilDurable(_ ticket: Journal.Ticket, key: String) async throws(StoreError) {
        do {
            try await journal.waitUntilDurable(ticket)
        } catch {
            await BlockingIO.run { self.rollBack() }
            throw StoreError(.writeFailed, wrapping: error, key: key)
        }
    }

    /// Waits outside the lock: the journal's queue may be filing, which takes it.
    private func rollBack() {
        let discard = journal.discardUndurable()
        do {
            try journal.waitUntilDurableBlocking(discard)
            var durable: [String: BlobChange] = [:]
            for record in try journal.recordsOnDisk() {
                let change = try BlobChange(decoding: record)
                durable[change.key] = change
            }
            state.withLock { state in
                // Changes queued after the cut-back stand; before it, only what it kept.
                var unfiled = state.unfiled.filter { $0.value.ticket > discard }
                for (key, change) in durable where unfiled[key] == nil { unfiled[key] = (0, change) }
                for key in Set(state.unfiled.keys).union(unfiled.keys) { cache.removeObject(forKey: key) }
                state.unfiled = unfiled
                state.changes += 1
            }
        } catch {
            StandardStream.error.report("BlobStore: cannot undo a change that failed to save: \(error)")
        }
    }

    /// How large the journal may grow before its changes are written to the files: the
    /// bytes held in memory until then, and read at start-up.
    static let checkpointBytes = 16 << 20

    /// Files the journal's changes once it outgrows ``checkpointBytes``, in the
    /// background: a change is acknowledged after one `fsync`, its file written later.
    private func checkpointIfLarge() {
        if journal.size > Self.checkpointBytes { scheduleCheckpoint() }
    }

    /// Queues a checkpoint that writes the changes not yet in the files, unless one is
    /// queued; returns the ticket to wait for, or `nil` when the files are up to date.
    @discardableResult
    private func scheduleCheckpoint() -> Journal.Ticket? {
        state.withLock { scheduling -> Journal.Ticket? in
            if let queued = scheduling.checkpoint { return queued }
            guard !scheduling.unfiled.isEmpty else { return nil }
            // The changes as they are now: the records before the checkpoint.
            let filing = scheduling.unfiled
            // Weak: the last reference to the store must not be let go on the journal's
            // queue, whose close the store's deinit waits for. A store gone by then left
            // its records in the journal, which the next one files.
            let ticket = journal.checkpoint { [weak self] () throws(SandboxError) -> CheckpointDigest in
                guard let self else { throw SandboxError(.cancelled, "the blob store was closed first") }
                let digest: CheckpointDigest
                do throws(SandboxError) {
                    digest = try file(filing)
                } catch {
                    state.withLock { $0.checkpoint = nil }
                    throw error
                }
                state.withLock { state in
                    for (key, entry) in filing where state.unfiled[key]?.ticket == entry.ticket {
                        state.unfiled[key] = nil
                    }
                    state.checkpoint = nil
                }
                return digest
            }
            scheduling.checkpoint = ticket
            return ticket
        }
    }

    /// Writes `changes` to the files, each durably, then a new marker; returns its
    /// digest, which the journal started after this names.
    private func file(_ changes: [String: (ticket: Journal.Ticket, change: BlobChange)]) throws(SandboxError)
        -> CheckpointDigest
    {
        var removed = false
        for (key, entry) in changes {
            let path = folder.map { "\($0)/\(key)" } ?? key
            do throws(SandboxError) {
                if let data = entry.change.data {
                    try directory.write(data, to: path)
                } else {
                    try directory.removeItem(path)
                    removed = true
                }
            } catch .noSuchFile {
                // Removed: never stored, or removed before a crash.
            } catch  where Self.refusedPlaces.contains(error.code) {
                // Something other than a file of ours took the key's place since the
                // change was accepted (a link out, a folder): reported, never followed,
                // and not left to fail every checkpoint after this one.
                StandardStream.error.report("BlobStore: the blob of \(key) is not filed: \(error)")
            }
        }
        // A removal is a change of the folder: durable once the folder is synced.
        if removed { try directory.synchronizeFolder(folder) }
        let marker = Data(UUID().uuidString.utf8)
        try directory.write(marker, to: markerName)
        return CheckpointDigest(of: marker)
    }

    private func path(forKey key: String) throws(StoreError) -> String {
        try Self.validate(key: key)
        return folder.map { "\($0)/\(key)" } ?? key
    }

    /// What a key's place on disk may have become that no write will ever get past.
    private static let refusedPlaces: Set<SandboxError.Code> = [
        .outsideContainer, .invalidName, .tooManySymbolicLinks, .isADirectory, .notRegularFile,
    ]

    /// The sandbox's own names: never a key, and the journal's and marker's.
    private static let reservedPrefix = ".keepsake-"

    /// A key is one file name (``NameValidator``) that the sandbox does not reserve for
    /// its own files; the sandbox layer checks links on disk.
    static func validate(key: String) throws(StoreError) {
        if let problem = NameValidator.problem(in: key) { throw StoreError(.invalidKey, "key: \(problem)", key: key) }
        if key.hasPrefix(reservedPrefix) {
            throw StoreError(.invalidKey, "`.keepsake-` is reserved for the sandbox's own files", key: key)
        }
    }
}
