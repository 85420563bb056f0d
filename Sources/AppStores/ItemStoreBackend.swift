public import AppSandbox
public import Foundation
public import KeyedArchive
import Synchronization

/// Where an ``ItemStore`` keeps its items: an archive file (``ArchiveFileBackend``, the
/// default), memory (``InMemoryBackend``, for tests), or later a database. Controllers
/// never see which.
public protocol ItemStoreBackend<Model>: Sendable {
    associatedtype Model: KeyedArchivable & Sendable

    /// Every saved item, in order; empty when nothing was ever saved.
    /// - Throws: ``StoreError``: `.corruptArchive` when what is saved is unreadable
    ///   (it must then be left as it is), `.readFailed`.
    func loadItems() throws(StoreError) -> [Model]

    /// Replaces what is saved with `items`, all or nothing.
    /// - Throws: ``StoreError``: `.encodingFailed`, `.writeFailed`; what was saved
    ///   before is then intact.
    func saveItems(_ items: [Model]) throws(StoreError)
}

/// Keeps the items as a keyed archive (an `NSArray` of the model objects, as
/// `NSKeyedArchiver.archiveRootObject(_:toFile:)` writes it) in one file of an app
/// container, `Documents/items.archive` by default, replaced durably and atomically on
/// each save.
///
/// A missing file loads as no items; a file that is not an archive of `Model`s fails
/// with `.corruptArchive` and stays untouched.
public struct ArchiveFileBackend<Model: KeyedArchivable & Sendable>: ItemStoreBackend {
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

    public func loadItems() throws(StoreError) -> [Model] {
        let data: Data
        do {
            data = try directory.contents(of: fileName)
        } catch .noSuchFile {
            return []
        } catch {
            throw StoreError(.readFailed, wrapping: error, path: url.path)
        }
        let items: [Model]?
        do {
            items = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Model.self, from: data)
        } catch {
            throw StoreError(
                .corruptArchive, "not an archive of \(Model.self) items", path: url.path, underlyingError: error)
        }
        guard let items else {
            throw StoreError(.corruptArchive, "the archive has no root object", path: url.path)
        }
        return items
    }

    public func saveItems(_ items: [Model]) throws(StoreError) {
        let data: Data
        do {
            data = try KeyedArchiver.archivedData(withRootObject: items)
        } catch {
            throw StoreError(.encodingFailed, "cannot archive the items", path: url.path, underlyingError: error)
        }
        do {
            try directory.create()
            try directory.write(data, to: fileName)
        } catch {
            throw StoreError(.writeFailed, wrapping: error, path: url.path)
        }
    }
}

/// Keeps the items in memory: for tests and previews. Counts saves and can be told to
/// fail the next ones.
public final class InMemoryBackend<Model: KeyedArchivable & Sendable>: ItemStoreBackend {
    private struct State {
        var items: [Model]
        var saveCount = 0
        var failingSaves = 0
    }

    private let state: Mutex<State>

    public init(items: [Model] = []) {
        state = Mutex(State(items: items))
    }

    /// What the last successful save stored.
    public var storedItems: [Model] { state.withLock { $0.items } }

    /// How many saves succeeded.
    public var saveCount: Int { state.withLock { $0.saveCount } }

    /// Makes the next `count` saves fail with `.writeFailed`.
    public func failNextSaves(_ count: Int = 1) {
        state.withLock { $0.failingSaves = count }
    }

    public func loadItems() throws(StoreError) -> [Model] { storedItems }

    public func saveItems(_ items: [Model]) throws(StoreError) {
        let failed = state.withLock { state in
            if state.failingSaves > 0 {
                state.failingSaves -= 1
                return true
            }
            state.items = items
            state.saveCount += 1
            return false
        }
        if failed { throw StoreError(.writeFailed, "the in-memory backend was told to fail") }
    }
}
