#if Database
import AppSandbox
import AppStores
import Foundation
import KeepsakeCloud

/// The photos of a shared inventory: in the database (``PostgresBlobStore``: see there
/// why), each also copied into the container's `Library/Caches/shared-images/` when
/// first shown. A copy is named by the photo's version, so a photo replaced elsewhere
/// is never served from an old copy; the old copy goes when the new version is read.
///
/// Deleting an item leaves its photo in the database: an edit made elsewhere may still
/// bring the item back, and its photo must come back with it. The item store removes
/// the photo with the item's row once the deletion is older than its retention
/// (``PostgresItemStoreBackend/tombstoneRetention``).
@MainActor
package final class SharedPhotos: PhotoSharing {
    package let blobs: PostgresBlobStore
    /// The copies: a cache, so not backed up, and rebuilt from the database as needed.
    package let cache: BlobStore
    /// The version of each photo in the database, as last read.
    private var versions: [String: Int64] = [:]

    init(blobs: PostgresBlobStore, container: AppContainer) throws {
        self.blobs = blobs
        cache = try BlobStore(container: container, directory: .caches, folder: "shared-images")
    }

    package func contains(_ key: String) -> Bool { versions[key] != nil }

    /// The photo's version, for URLs that change when it does.
    package func version(of key: String) -> Int64? { versions[key] }

    private static func copyName(_ key: String, _ version: Int64) -> String { "\(key).v\(version)" }

    package func set(_ data: Data, forKey key: String) async throws {
        let version = try await blobs.set(data, forKey: key)
        await remember(version, of: key)
        try? await cache.set(data, forKey: Self.copyName(key, version))
    }

    package func data(forKey key: String, maxBytes: Int) async throws -> Data? {
        if let version = versions[key], let copy = try? await cache.data(forKey: Self.copyName(key, version)) {
            return copy
        }
        guard let blob = try await blobs.data(forKey: key, maxBytes: maxBytes) else { return nil }
        await remember(blob.version, of: key)
        try? await cache.set(blob.data, forKey: Self.copyName(key, blob.version))
        return blob.data
    }

    package func delete(forKey key: String) async throws {
        try await blobs.delete(forKey: key)
        await remember(nil, of: key)
    }

    /// Records `version` as the photo's newest known one, dropping an older copy.
    private func remember(_ version: Int64?, of key: String) async {
        let old = versions[key]
        versions[key] = version
        if let old, old != version { try? await cache.delete(forKey: Self.copyName(key, old)) }
    }

    /// Reads the photos' versions. Returns whether any photo was added, replaced or
    /// removed since the last read.
    func refresh() async throws -> Bool {
        let current = try await blobs.versions()
        guard current != versions else { return false }
        for key in Set(versions.keys).union(current.keys) { await remember(current[key], of: key) }
        return true
    }
}
#endif
