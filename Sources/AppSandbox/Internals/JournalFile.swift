import Foundation

/// The journal's open file and what is known of it.
///
/// `@unchecked Sendable`: after ``Journal/open(_:in:lockTimeout:following:)`` builds it, only the
/// journal's serial queue touches it, so its mutable properties need no lock.
final class JournalFile: @unchecked Sendable {
    let directory: SandboxDirectory
    let name: String
    private var handle: AppendingFile?
    /// The lock that keeps a second journal off this file while this one is open.
    private var lock: Int32?
    /// Bytes known to be on disk: everything up to the last `fsync` that succeeded.
    private(set) var durableLength: Int
    /// Bytes written, durable or not.
    private(set) var writtenLength: Int
    /// Set when a write or `fsync` failed: nothing more is written after a record that
    /// may be missing, until ``discardUndurable()`` cuts the file back.
    private var failure: SandboxError?
    /// Set when a checkpoint was written but the fresh journal after it could not be
    /// started: appending to the old one would put records where replay skips them,
    /// so every append first tries again to start it.
    private var pendingRestart: (digest: CheckpointDigest, error: SandboxError)?

    init(directory: SandboxDirectory, name: String, lock: Int32, handle: AppendingFile, length: Int) {
        self.directory = directory
        self.name = name
        self.lock = lock
        self.handle = handle
        durableLength = length
        writtenLength = length
    }

    /// Writes `bytes` at the end and `fsync`s them.
    func append(_ bytes: [UInt8]) -> Result<Void, SandboxError> {
        if let pending = pendingRestart {
            restart(following: pending.digest)
            if let pending = pendingRestart { return .failure(pending.error) }
        }
        if let failure { return .failure(failure) }
        guard let handle else { return .failure(SandboxError(.ioError, "the journal is closed", path: path)) }
        do throws(SandboxError) {
            writtenLength += bytes.count
            let written = bytes.withUnsafeBytes { raw in Result { () throws(SandboxError) in try handle.append(raw) } }
            try written.get()
            try handle.sync()
            durableLength = writtenLength
            return .success(())
        } catch {
            failure = error
            return .failure(error)
        }
    }

    /// Cuts the file back to its durable length, so appending can go on.
    func discardUndurable() -> Result<Void, SandboxError> {
        if let pending = pendingRestart {
            restart(following: pending.digest)
            if let pending = pendingRestart { return .failure(pending.error) }
            return .success(())
        }
        guard let handle else { return .failure(SandboxError(.ioError, "the journal is closed", path: path)) }
        do throws(SandboxError) {
            do {
                try handle.truncate(to: durableLength)
            } catch {
                // Written whole but never acknowledged, those records must not come back
                // at the next start: the durable part is written anew in their place.
                try rewriteDurablePart()
            }
            writtenLength = durableLength
            failure = nil
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// The records on disk up to the last `fsync` that succeeded.
    func durableRecords() throws(SandboxError) -> [Journal.Record] {
        let bytes = try directory.contents(of: name).prefix(durableLength)
        return JournalFormat.scan([UInt8](bytes)).records.map {
            Journal.Record(ticket: $0.sequence, payload: $0.payload)
        }
    }

    /// Replaces the journal, durably and atomically, with its first ``durableLength``
    /// bytes, and appends to the new file from then on.
    private func rewriteDurablePart() throws(SandboxError) {
        let bytes = try directory.contents(of: name).prefix(durableLength)
        guard bytes.count == durableLength else {
            throw SandboxError(.ioError, "the journal is shorter than what was made durable", path: path)
        }
        try directory.replaceRegularFile(Data(bytes), at: name)
        let fresh = try directory.openForAppending(name)
        handle?.close()
        handle = fresh
    }

    /// Replaces the journal with an empty one naming `digest`, durably and atomically.
    func restart(following digest: CheckpointDigest) {
        do throws(SandboxError) {
            let fresh = try Self.create(name, in: directory, following: digest)
            handle?.close()
            handle = fresh
            durableLength = JournalFormat.headerSize
            writtenLength = durableLength
            failure = nil
            pendingRestart = nil
        } catch {
            pendingRestart = (digest, error)
        }
    }

    func close() {
        handle?.close()
        handle = nil
        if let lock { try? directory.container.system.close(lock) }
        lock = nil
    }

    /// Takes the journal's lock, beside it, waiting at most `timeout`: two journals
    /// appending to one file would each replace the other's, and records would be lost.
    /// - Throws: ``SandboxError`` `.timedOut` when another journal holds it.
    static func lock(_ name: String, in directory: SandboxDirectory, timeout: Duration) throws(SandboxError) -> Int32 {
        let system = directory.container.system
        do {
            return try directory.withItem(LockFile.name(for: name), followFinalLink: false) {
                location throws(SandboxError) in
                try LockFile.acquire(
                    system, parent: location.parent, name: location.name, path: location.path, exclusive: true,
                    wait: LockFile.Wait(timeout: timeout))
            }
        } catch .timedOut {
            throw SandboxError(
                .timedOut, "the journal is open in another store, in this process or another",
                path: directory.url.appendingPathComponent(name).path)
        }
    }

    var path: String { directory.url.appendingPathComponent(name).path }

    /// Writes a journal holding only a header naming `digest` (replacing any), and
    /// opens it for appending.
    static func create(_ name: String, in directory: SandboxDirectory, following digest: CheckpointDigest)
        throws(SandboxError) -> AppendingFile
    {
        try directory.replaceRegularFile(Data(JournalFormat.header(following: digest)), at: name)
        return try directory.openForAppending(name)
    }
}
