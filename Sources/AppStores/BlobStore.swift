import AppRuntime
@_spi(Journal) public import AppSandbox
public import Foundation

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
/// cache in front, and a write-ahead journal beside the folder.
///
/// Corresponds to the books' `ImageStore`: `set(_:forKey:)` stores and caches the
/// blob, `data(forKey:)` reads the cache, then the file, `delete(forKey:)` removes
/// both. Keys are file names: one that is empty, holds `/` or NUL, is `.` or `..`, is
/// longer than 255 bytes or starts with the sandbox's reserved `.keepsake-` prefix is
/// refused with `.invalidKey`, and so is one that would resolve outside the folder (a
/// symbolic link pointing out). The cache empties on a memory warning.
///
/// **Durability.** A change is appended to the journal (`images.journal` beside
/// `images/`) and returns once that is `fsync`ed: concurrent changes share one
/// `fsync`. Its file is then written at once, without `fsync`, so the books' readers
/// of ``url(forKey:)`` find it; a crash may tear that file, and the next store made on
/// the folder writes it again from the journal (on a full disk, it serves the change
/// from the journal until it can). `flush()` (the books' save on
/// entering the background), and the store by itself once the journal passes 16 MiB,
/// write every changed file durably and empty the journal. Only one store at a time
/// keeps a folder's journal, in this process or another.
///
/// ```swift
/// let imageStore = try BlobStore(container: container)        // Documents/images/
/// try imageStore.set(jpeg, forKey: item.itemKey)              // durable when it returns
/// let photo = try imageStore.data(forKey: item.itemKey)
/// try imageStore.delete(forKey: item.itemKey)
/// ```
///
/// Each call has an `async` form that suspends instead of blocking its thread; call
/// those from the main actor and from tasks.
public final class BlobStore: Sendable {
    public let directory: SandboxDirectory
    /// The folder inside ``directory`` holding the files; `nil` for the directory itself
    /// (the seeds' layout: one file per key in `Documents/`, the journal then named
    /// `.journal`).
    public let folder: String?
    public let cache: MemoryCache<String, Data>
    private let files: BlobFiles
    private let journal: Journal

    /// The size past which the store writes the files durably and empties the journal.
    static let checkpointBytes = 16 << 20

    /// Opens the folder's journal and writes what it holds (changes a crash left
    /// unfiled) into the files, durably. When they cannot be written (a full disk),
    /// the store opens all the same: it serves those changes from memory, says so on
    /// standard error, and files them at the next change or ``flush()-8peaj``, or by itself,
    /// trying again with a wait that grows to a minute.
    /// - Parameters:
    ///   - container: the container the blobs are kept in.
    ///   - directory: the container's directory that holds the folder; `Documents/` by
    ///     default.
    ///   - folder: a folder name in `directory` (created if missing), or `nil`.
    ///   - cache: the cache in front of the files; by default up to 64 MiB of blobs,
    ///     emptied on memory warnings.
    ///   - lockTimeout: how long to wait for another store on the folder to close.
    /// - Throws: ``StoreError`` `.writeFailed` when the folder or the journal cannot be
    ///   created or opened (also when another store keeps the journal), `.invalidKey`
    ///   when `folder` is not a plain name.
    public init(
        container: AppContainer, directory: AppContainer.Directory = .documents, folder: String? = "images",
        cache: MemoryCache<String, Data> = MemoryCache(totalCostLimit: 64 << 20), lockTimeout: Duration = .seconds(2)
    ) throws(StoreError) {
        self.directory = container.directory(directory)
        self.folder = folder
        self.cache = cache
        let files = BlobFiles(directory: self.directory, folder: folder, cache: cache)
        self.files = files
        let journalPath = self.directory.url.appendingPathComponent(files.journalName).path
        let recovery: JournalRecovery
        do {
            if let folder {
                try Self.validate(key: folder)
                try self.directory.create()
                try self.directory.createDirectory(folder)
            }
            (journal, recovery) = try Journal.open(files.journalName, in: self.directory, lockTimeout: lockTimeout) {
                .none
            }
        } catch let error as StoreError {
            throw error
        } catch let error as SandboxError {
            throw StoreError(.writeFailed, wrapping: error, path: journalPath)
        } catch {
            throw StoreError(.writeFailed, "cannot open the journal: \(error)", path: journalPath)
        }
        if !journal.isEmpty {
            do throws(SandboxError) {
                try journal.waitUntilDurableBlocking(journal.checkpoint(filing: Self.filing(files)))
            } catch {
                // A full disk must not keep the app from starting: the journal still
                // holds every change, so they are served from memory and filed later.
                files.holdUnfiled(zip(recovery.tickets, recovery.records).map(Journal.Record.init))
                StandardStream.error.report(
                    "BlobStore: the \(recovery.records.count) changes in \(files.journalName) could not be written"
                        + " to their files (\(error)); they are served from the journal, and written at the next"
                        + " change or flush")
                retryFiling(after: .seconds(1))
            }
        }
    }

    /// Files the changes held since start-up, trying again with a wait that grows to a
    /// minute, until that works or the store is released: space freed while no
    /// photo changes still lets the files catch up.
    private func retryFiling(after wait: Duration) {
        SystemScheduler().schedule(after: wait) { [weak self] in
            guard let self, files.holdsUnfiled else { return }
            checkpointWhenDue()
            retryFiling(after: min(wait * 2, .seconds(60)))
        }
    }

    deinit { journal.close() }

    // MARK: Changes

    /// Stores `data` under `key`, replacing any previous blob, durably, then caches it.
    /// Corresponds to the seeds' `setImage(_:forKey:)`.
    /// - Throws: ``StoreError`` `.invalidKey`, `.writeFailed` (the previous blob is then
    ///   intact, on disk and in the cache).
    public func set(_ data: Data, forKey key: String) throws(StoreError) {
        try commit(BlobChange(key: key, data: data)) { ticket throws(SandboxError) in
            try journal.waitUntilDurableBlocking(ticket)
        }
    }

    /// ``set(_:forKey:)``, suspending while the journal writes.
    public func set(_ data: Data, forKey key: String) async throws(StoreError) {
        try await commit(BlobChange(key: key, data: data))
    }

    /// Removes the blob under `key` from the cache and the disk, durably. A key with
    /// no blob is not an error. Corresponds to the seeds' `deleteImage(forKey:)`, which
    /// printed the error; this throws it.
    /// - Throws: ``StoreError`` `.invalidKey`, `.deleteFailed`.
    public func delete(forKey key: String) throws(StoreError) {
        try commit(BlobChange(key: key, data: nil)) { ticket throws(SandboxError) in
            try journal.waitUntilDurableBlocking(ticket)
        }
    }

    /// ``delete(forKey:)``, suspending while the journal writes.
    public func delete(forKey key: String) async throws(StoreError) {
        try await commit(BlobChange(key: key, data: nil))
    }

    private func commit(
        _ change: BlobChange, waitingWith wait: (Journal.Ticket) throws(SandboxError) -> Void
    ) throws(StoreError) {
        let ticket = try record(change)
        do throws(SandboxError) {
            try wait(ticket)
        } catch {
            // The record may be whole in the file: cut it off before saying it failed.
            let cutBack = Result { () throws(SandboxError) in try wait(journal.discardUndurable()) }
            files.owesCutBack = (try? cutBack.get()) == nil
            throw failed(change, error)
        }
        files.apply(change, ticket: ticket)
        checkpointWhenDue()
    }

    private func commit(_ change: BlobChange) async throws(StoreError) {
        let ticket = try record(change)
        do throws(SandboxError) {
            try await journal.waitUntilDurable(ticket)
        } catch {
            let cutBack: Result<Void, SandboxError>
            do throws(SandboxError) {
                try await journal.waitUntilDurable(journal.discardUndurable())
                cutBack = .success(())
            } catch {
                cutBack = .failure(error)
            }
            files.owesCutBack = (try? cutBack.get()) == nil
            throw failed(change, error)
        }
        await BlockingIO.run { [files] in files.apply(change, ticket: ticket) }
        checkpointWhenDue()
    }

    private func record(_ change: BlobChange) throws(StoreError) -> Journal.Ticket {
        let path = try path(forKey: change.key)
        do throws(SandboxError) {
            // Refused now, before it is journaled, what would refuse the file's write at
            // every checkpoint: a link leading out of the container, a folder or a FIFO.
            _ = try directory.url(for: path)
            // Queued before the record, so the record is appended once the file is cut
            // back; asked once: if it fails, so does the record, which owes it again.
            if files.owesCutBack {
                files.owesCutBack = false
                _ = journal.discardUndurable()
            }
            if change.data != nil, let kind = try? directory.attributesOfItem(path).kind,
                kind == .directory || kind == .other
            {
                throw SandboxError(.notRegularFile, "only a file is replaced by a blob", path: path)
            }
            return try journal.append(change.encoded())
        } catch {
            throw failed(change, error)
        }
    }

    private func failed(_ change: BlobChange, _ error: SandboxError) -> StoreError {
        StoreError(change.data == nil ? .deleteFailed : .writeFailed, wrapping: error, key: change.key)
    }

    /// Queues a checkpoint once the journal is large, or while changes it held at
    /// start-up wait for their files (a disk that was full then).
    private func checkpointWhenDue() {
        guard journal.size > Self.checkpointBytes || files.holdsUnfiled, files.claimBackgroundCheckpoint() else {
            return
        }
        _ = journal.checkpoint { [files] records throws(SandboxError) in try files.fileInBackground(records) }
    }

    /// Writes every changed file durably and empties the journal. A change is durable
    /// without it; call it where the books save (entering the background), so the
    /// files alone hold everything.
    /// - Throws: ``StoreError`` `.writeFailed`; the journal then keeps the changes.
    public func flush() throws(StoreError) {
        do throws(SandboxError) {
            try journal.waitUntilDurableBlocking(journal.checkpoint(filing: Self.filing(files)))
        } catch {
            throw StoreError(.writeFailed, wrapping: error)
        }
    }

    /// ``flush()``, suspending while the files are written.
    public func flush() async throws(StoreError) {
        do throws(SandboxError) {
            try await journal.waitUntilDurable(journal.checkpoint(filing: Self.filing(files)))
        } catch {
            throw StoreError(.writeFailed, wrapping: error)
        }
    }

    /// The checkpoint's work, holding the files but never the store: the store's last
    /// release closes the journal, which waits for the queue this runs on.
    private static func filing(_ files: BlobFiles) -> @Sendable ([Journal.Record]) throws(SandboxError) -> Void {
        { records throws(SandboxError) in try files.file(records) }
    }

    // MARK: Reads

    /// The blob under `key`, from memory or else from disk (then cached); `nil` when
    /// there is none. Corresponds to the seeds' `image(forKey:)`.
    /// - Throws: ``StoreError`` `.invalidKey`, `.readFailed`.
    public func data(forKey key: String) throws(StoreError) -> Data? {
        _ = try path(forKey: key)
        do throws(SandboxError) {
            return try files.data(forKey: key)
        } catch {
            throw StoreError(.readFailed, wrapping: error, key: key)
        }
    }

    /// ``data(forKey:)``, suspending while the file is read.
    public func data(forKey key: String) async throws(StoreError) -> Data? {
        try await BlockingIO.run { [self] () throws(StoreError) in try data(forKey: key) }
    }

    /// Whether a blob is stored under `key` (an invalid key has none).
    public func contains(key: String) -> Bool {
        guard (try? path(forKey: key)) != nil else { return false }
        return files.contains(key: key)
    }

    /// The format of the blob under `key`, from its first bytes; `nil` when there is none.
    /// - Throws: ``StoreError``, as `data(forKey:)`.
    public func imageKind(forKey key: String) throws(StoreError) -> ImageKind? {
        try data(forKey: key).map { ImageKind(bytes: $0) }
    }

    /// The file URL of `key`'s blob. Corresponds to the seeds' `imageURL(forKey:)`. A
    /// file that could not be written after its change was journaled is written first
    /// (`flush()`), so the URL shows the stored blob.
    /// - Throws: ``StoreError`` `.invalidKey`, `.writeFailed`.
    public func url(forKey key: String) throws(StoreError) -> URL {
        let path = try path(forKey: key)
        if files.needsFiling(key) { try flush() }
        do {
            return try directory.url(for: path)
        } catch {
            throw StoreError(.invalidKey, wrapping: error, key: key)
        }
    }

    /// Every stored key, sorted.
    /// - Throws: ``StoreError`` `.readFailed`.
    public func allKeys() throws(StoreError) -> [String] {
        do {
            return try files.allKeys()
        } catch {
            throw StoreError(.readFailed, wrapping: error)
        }
    }

    private func path(forKey key: String) throws(StoreError) -> String {
        try Self.validate(key: key)
        if files.isJournalFile(key) {
            throw StoreError(.invalidKey, "`\(files.journalName)` names the store's journal", key: key)
        }
        return files.path(forKey: key)
    }

    /// A key is one file name (``NameValidator``) that the sandbox does not reserve for
    /// its own files; the sandbox layer checks links on disk.
    static func validate(key: String) throws(StoreError) {
        if let problem = NameValidator.problem(in: key) { throw StoreError(.invalidKey, "key: \(problem)", key: key) }
        if key.hasPrefix(".keepsake-") {
            throw StoreError(.invalidKey, "`.keepsake-` is reserved for the sandbox's own files", key: key)
        }
    }
}
