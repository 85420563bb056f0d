import AppSandbox
import AppStores
import Foundation
import KeepsakeCloud

/// The photos of a shared inventory: in the database (``PostgresBlobStore``: see there
/// why), each also copied into the container's `Library/Caches/shared-images/` when
/// first shown, and dropped from there when another instance replaces or removes it.
@MainActor
public final class SharedPhotos {
    public let blobs: PostgresBlobStore
    /// The copies: a cache, so not backed up, and rebuilt from the database as needed.
    public let cache: BlobStore
    /// The version of each photo in the database, as last read.
    private var versions: [String: Int64] = [:]
    /// Photos of items deleted here, removed from the database once the deletion is saved.
    private var deletedItemKeys: Set<String> = []

    init(blobs: PostgresBlobStore, container: AppContainer) throws {
        self.blobs = blobs
        cache = try BlobStore(container: container, directory: .caches, folder: "shared-images")
    }

    func contains(_ key: String) -> Bool { versions[key] != nil }

    func set(_ data: Data, forKey key: String) async throws {
        try await blobs.set(data, forKey: key)
        try? cache.set(data, forKey: key)
        _ = try? await refresh()
    }

    func data(forKey key: String, maxBytes: Int) async throws -> Data? {
        if let copy = try? cache.data(forKey: key) { return copy }
        guard let data = try await blobs.data(forKey: key, maxBytes: maxBytes) else { return nil }
        try? cache.set(data, forKey: key)
        return data
    }

    func delete(forKey key: String) async throws {
        try await blobs.delete(forKey: key)
        try? cache.delete(forKey: key)
        versions[key] = nil
    }

    func itemWasDeleted(_ key: String) { deletedItemKeys.insert(key) }

    /// Removes the photos of items deleted here once the saved inventory no longer
    /// lists them (a merge can bring an item back, with its photo). Best effort: what
    /// fails is tried again after the next save.
    func removePhotos(ofDeletedItemsNotIn savedKeys: Set<String>) async {
        for key in deletedItemKeys {
            if savedKeys.contains(key) {
                deletedItemKeys.remove(key)
            } else if (try? await delete(forKey: key)) != nil {
                deletedItemKeys.remove(key)
            }
        }
    }

    /// Reads the photos' versions; drops the copies of those changed elsewhere. Returns
    /// whether any photo was added, replaced or removed since the last read.
    func refresh() async throws -> Bool {
        let current = try await blobs.versions()
        guard current != versions else { return false }
        for (key, version) in versions where current[key] != version { try? cache.delete(forKey: key) }
        versions = current
        return true
    }
}
