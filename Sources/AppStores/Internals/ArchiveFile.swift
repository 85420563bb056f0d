@_spi(Journal) import AppSandbox
import Foundation

/// An item archive's file and the journal beside it, as bytes: what an
/// ``ArchiveFileBackend`` reads and writes off the caller's thread, free of the model
/// type, so that it can be handed to another thread.
struct ArchiveFile: Sendable {
    let directory: SandboxDirectory
    let fileName: String
    /// The archive's path, for errors.
    let path: String

    /// The journal an ``ItemStore`` keeps beside the archive.
    var journalName: String { Journal.name(besides: fileName) }
    var journalURL: URL { directory.url.appendingPathComponent(journalName) }

    /// The archive's bytes; `nil` when there is none yet.
    /// - Throws: ``StoreError`` `.readFailed`.
    func contents() throws(StoreError) -> Data? {
        do {
            return try directory.contents(of: fileName)
        } catch .noSuchFile {
            return nil
        } catch {
            throw StoreError(.readFailed, wrapping: error, path: path)
        }
    }

    /// The archive's bytes and `journal`'s durable records after it: what a reopen
    /// would read.
    /// - Throws: ``StoreError`` `.readFailed`.
    func bytesOnDisk(following journal: Journal) throws(StoreError) -> (archive: Data?, records: [Data]) {
        let archive = try contents()
        do {
            return (archive, try journal.recordsOnDisk())
        } catch {
            throw StoreError(.readFailed, wrapping: error, path: journalURL.path)
        }
    }

    /// Replaces the archive with `snapshot`, as a journal's checkpoint.
    func writeCheckpoint(_ snapshot: Data) throws(SandboxError) -> CheckpointDigest {
        try directory.create()
        try directory.write(snapshot, to: fileName)
        return CheckpointDigest(of: snapshot)
    }
}
