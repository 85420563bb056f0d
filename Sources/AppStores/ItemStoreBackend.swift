import AppRuntime
@_spi(Journal) public import AppSandbox
public import Foundation
public import KeyedArchive
import Locking

/// Where an ``ItemStore`` keeps its items: an archive file (``ArchiveFileBackend``, the
/// default), memory (``InMemoryBackend``, for tests), or later a database. Controllers
/// never see which.
///
/// A save comes in two steps so that models need not be `Sendable`: the items are
/// turned into a ``Snapshot`` where they live (the main actor), and the snapshot is
/// written wherever the store chooses, a thread that may block on the disk.
///
/// Loading comes in two forms: `loadItems()`, which blocks, for the books' synchronous
/// calls, and its `async` overload, which suspends the caller instead (by
/// default it runs the synchronous one on a thread of `BlockingIO`'s, never on Swift's
/// cooperative pool; a backend that talks to a server implements it with its client's
/// own async calls). Writes have one form: an ``ItemStore`` makes them on its serial
/// I/O queue, off the pool and the main actor, so that saves reach the backend in the
/// order they were asked for, whether their caller waits or suspends.
public protocol ItemStoreBackend<Model>: Sendable {
    associatedtype Model: KeyedArchivable
    /// The items as a save writes them, safe to hand to another thread.
    associatedtype Snapshot: Sendable

    /// Every saved item, in order; empty when nothing was ever saved.
    /// - Throws: ``StoreError``: `.corruptArchive` when what is saved is unreadable
    ///   (it must then be left as it is), `.readFailed`.
    func loadItems() throws(StoreError) -> [Model]

    /// Encodes `items` for ``write(_:)``.
    /// - Throws: ``StoreError`` `.encodingFailed`.
    func snapshot(of items: [Model]) throws(StoreError) -> Snapshot

    /// Replaces what is saved with `snapshot`, all or nothing. May block.
    /// - Throws: ``StoreError`` `.writeFailed`; what was saved before is then intact.
    func write(_ snapshot: Snapshot) throws(StoreError)

    /// ``loadItems()`` without holding the caller's thread.
    /// - Throws: ``StoreError``, as ``loadItems()``.
    func loadItems() async throws(StoreError) -> [Model]
}

extension ItemStoreBackend {
    public func loadItems() async throws(StoreError) -> [Model] {
        try await BlockingIO.run { () throws(StoreError) in try self.loadItems() }
    }

    /// Replaces what is saved with `items`, all or nothing.
    /// - Throws: ``StoreError``, as ``snapshot(of:)`` and ``write(_:)``.
    public func saveItems(_ items: [Model]) throws(StoreError) {
        try write(snapshot(of: items))
    }
}

/// The archive a backend writes for `items`.
private func archivedItems<Model: KeyedArchivable>(_ items: [Model], path: String?) throws(StoreError) -> Data {
    do {
        return try KeyedArchiver.archivedData(withRootObject: items)
    } catch {
        throw StoreError(.encodingFailed, "cannot archive the items", path: path, underlyingError: error)
    }
}

/// Keeps the items as a keyed archive (an `NSArray` of the model objects, as
/// `NSKeyedArchiver.archiveRootObject(_:toFile:)` writes it) in one file of an app
/// container, `Documents/items.archive` by default, replaced durably and atomically on
/// each save.
///
/// A missing file loads as no items; a file that is not an archive of `Model`s fails
/// with `.corruptArchive` and stays untouched.
public struct ArchiveFileBackend<Model: KeyedArchivable>: ItemStoreBackend {
    public let directory: SandboxDirectory
    /// The file's path inside ``directory``.
    public let fileName: String

    public init(
        container: AppContainer, directory: AppContainer.Directory = .documents, fileName: String = "items.archive"
    ) {
        self.directory = container.directory(directory)
        self.fileName = fileName
    }

    /// The archive's URL. Corresponds to the seeds' `itemArchiveURL`.
    public var url: URL { directory.url.appendingPathComponent(fileName) }

    /// The file's bytes and where they live, apart from the model: what may be handed
    /// to another thread.
    var file: ArchiveFile { ArchiveFile(directory: directory, fileName: fileName, path: url.path) }

    public func loadItems() throws(StoreError) -> [Model] {
        try loadCheckpoint().items
    }

    /// The items and the digest of the archive they were read from (of no archive
    /// when there is none).
    func loadCheckpoint() throws(StoreError) -> (items: [Model], digest: CheckpointDigest) {
        let data = try file.contents()
        return (try items(in: data), data.map(CheckpointDigest.init(of:)) ?? .none)
    }

    /// The items an archive holds; none when there is no archive.
    private func items(in archive: Data?) throws(StoreError) -> [Model] {
        guard let archive else { return [] }
        do {
            // A typed array: a model's own fields may hold collections, which the
            // collection call unarchivedArrayOfObjects refuses. A nil root throws.
            return try KeyedUnarchiver.unarchivedStoredObject(ofClass: [Model].self, from: archive) ?? []
        } catch {
            throw StoreError(
                .corruptArchive, "not an archive of \(Model.self) items", path: url.path, underlyingError: error)
        }
    }

    /// `checkpoint` with the journal's `records` applied in order; `each` sees every
    /// change, its record and the items before it applies.
    /// - Throws: ``StoreError`` `.corruptArchive` for a record that does not apply.
    func replay(
        _ records: [Data], onto checkpoint: [Model],
        each: (_ change: ItemChange<Model>, _ record: Data, _ before: [Model]) -> Void = { _, _, _ in }
    ) throws(StoreError) -> [Model] {
        var items = checkpoint
        for (index, record) in records.enumerated() {
            do {
                let change = try ItemChange<Model>(decoding: record)
                each(change, record, items)
                change.apply(to: &items)
            } catch {
                var error = error
                error.message += " (record \(index + 1) of \(records.count))"
                error.path = file.journalURL.path
                throw error
            }
        }
        return items
    }

    /// What a reopen would load: the archive, and `journal`'s durable records after it.
    /// - Throws: ``StoreError``: `.readFailed`, `.corruptArchive`.
    func itemsOnDisk(following journal: Journal) throws(StoreError) -> [Model] {
        let (archive, records) = try file.bytesOnDisk(following: journal)
        return try replay(records, onto: items(in: archive))
    }

    public func snapshot(of items: [Model]) throws(StoreError) -> Data {
        try archivedItems(items, path: url.path)
    }

    public func write(_ snapshot: Data) throws(StoreError) {
        do {
            _ = try file.writeCheckpoint(snapshot)
        } catch {
            throw StoreError(.writeFailed, wrapping: error, path: url.path)
        }
    }
}

/// Keeps the items' archive in memory: for tests and previews. Counts saves and can be
/// told to fail the next ones.
public final class InMemoryBackend<Model: KeyedArchivable>: ItemStoreBackend {
    private struct State {
        var archive: Data?
        var saveCount = 0
        var failingSaves = 0
    }

    private let state: Locked<State>

    /// A backend holding `items` as if they had been saved.
    /// - Throws: ``StoreError`` `.encodingFailed` when `items` cannot be archived.
    public init(items: [Model] = []) throws(StoreError) {
        let saved = items.isEmpty ? nil : try archivedItems(items, path: nil)
        state = Locked(State(archive: saved))
    }

    /// How many saves succeeded.
    public var saveCount: Int { state.withLock { $0.saveCount } }

    /// Makes the next `count` saves fail with `.writeFailed`.
    public func failNextSaves(_ count: Int = 1) {
        state.withLock { $0.failingSaves = count }
    }

    /// What the last successful save stored, decoded afresh.
    public func loadItems() throws(StoreError) -> [Model] {
        guard let archive = state.withLock({ $0.archive }) else { return [] }
        do {
            return try KeyedUnarchiver.unarchivedStoredObject(ofClass: [Model].self, from: archive) ?? []
        } catch {
            throw StoreError(.corruptArchive, "not an archive of \(Model.self) items", underlyingError: error)
        }
    }

    public func snapshot(of items: [Model]) throws(StoreError) -> Data {
        try archivedItems(items, path: nil)
    }

    public func write(_ snapshot: Data) throws(StoreError) {
        let failed = state.withLock { state in
            if state.failingSaves > 0 {
                state.failingSaves -= 1
                return true
            }
            state.archive = snapshot
            state.saveCount += 1
            return false
        }
        if failed { throw StoreError(.writeFailed, "the in-memory backend was told to fail") }
    }
}
