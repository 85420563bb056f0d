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
/// cache in front.
///
/// Corresponds to the books' `ImageStore`: ``set(_:forKey:)`` writes the file at once
/// (durably and atomically, like `data.write(to: url, options: [.atomic])`) and
/// caches it, ``data(forKey:)`` reads the cache, then the file, ``delete(forKey:)``
/// removes both. Keys are file names: one that is empty, holds `/` or NUL, is `.` or
/// `..`, is longer than 255 bytes or starts with the sandbox's reserved `.keepsake-`
/// prefix is refused with `.invalidKey`, and so is one that would resolve outside the
/// folder (a symbolic link pointing out). The cache empties on a memory warning.
///
/// ```swift
/// let imageStore = try BlobStore(container: container)        // Documents/images/
/// try imageStore.set(jpeg, forKey: item.itemKey)
/// let photo = try imageStore.data(forKey: item.itemKey)
/// try imageStore.delete(forKey: item.itemKey)
/// ```
public final class BlobStore: Sendable {
    public let directory: SandboxDirectory
    /// The folder inside ``directory`` holding the files; `nil` for the directory itself
    /// (the seeds' layout: one file per key in `Documents/`).
    public let folder: String?
    public let cache: MemoryCache<String, Data>
    /// Serialises writes, deletes and cache fills so the cache never keeps bytes the
    /// disk no longer has.
    private let fileLock = Mutex(())

    /// - Parameters:
    ///   - folder: a folder name in `directory` (created if missing), or `nil`.
    ///   - cache: the cache in front of the files; by default up to 64 MiB of blobs,
    ///     emptied on memory warnings.
    /// - Throws: ``StoreError`` `.writeFailed` when the folder cannot be created,
    ///   `.invalidKey` when `folder` is not a plain name.
    public init(
        container: AppContainer, directory: AppContainer.Directory = .documents, folder: String? = "images",
        cache: MemoryCache<String, Data> = MemoryCache(totalCostLimit: 64 << 20)
    ) throws(StoreError) {
        self.directory = container.directory(directory)
        self.folder = folder
        self.cache = cache
        do {
            try self.directory.create()
            if let folder {
                try Self.validate(key: folder)
                try self.directory.createDirectory(folder)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as SandboxError {
            throw StoreError(.writeFailed, wrapping: error)
        } catch {
            throw StoreError(.writeFailed, "\(error)")
        }
    }

    /// Stores `data` under `key`, replacing any previous blob, durably, then caches it.
    /// Corresponds to the seeds' `setImage(_:forKey:)`.
    /// - Throws: ``StoreError`` `.invalidKey`, `.writeFailed` (the previous blob is then
    ///   intact, on disk and in the cache).
    public func set(_ data: Data, forKey key: String) throws(StoreError) {
        let path = try path(forKey: key)
        try fileLock.withLock { _ throws(StoreError) in
            do throws(SandboxError) {
                try directory.write(data, to: path)
            } catch {
                throw StoreError(.writeFailed, wrapping: error, key: key)
            }
            cache.setObject(data, forKey: key, cost: data.count)
        }
    }

    /// The blob under `key`, from the cache or else from disk (then cached); `nil` when
    /// there is none. Corresponds to the seeds' `image(forKey:)`.
    /// - Throws: ``StoreError`` `.invalidKey`, `.readFailed`.
    public func data(forKey key: String) throws(StoreError) -> Data? {
        let path = try path(forKey: key)
        if let cached = cache.object(forKey: key) { return cached }
        return try fileLock.withLock { _ throws(StoreError) -> Data? in
            if let cached = cache.object(forKey: key) { return cached }
            let data: Data
            do throws(SandboxError) {
                data = try directory.contents(of: path)
            } catch .noSuchFile {
                return nil
            } catch {
                throw StoreError(.readFailed, wrapping: error, key: key)
            }
            cache.setObject(data, forKey: key, cost: data.count)
            return data
        }
    }

    /// Removes the blob under `key` from the cache and the disk, durably: returns once
    /// the folder no longer names it after a crash. A key with no blob is not an error.
    /// Corresponds to the seeds' `deleteImage(forKey:)`, which printed the error; this
    /// throws it.
    /// - Throws: ``StoreError`` `.invalidKey`, `.deleteFailed`.
    public func delete(forKey key: String) throws(StoreError) {
        let path = try path(forKey: key)
        try fileLock.withLock { _ throws(StoreError) in
            cache.removeObject(forKey: key)
            do throws(SandboxError) {
                try directory.removeItem(path)
                // A removal is a change of the folder: durable once the folder is synced.
                try directory.synchronizeFolder(folder)
            } catch .noSuchFile {
                // Nothing to delete.
            } catch {
                throw StoreError(.deleteFailed, wrapping: error, key: key)
            }
        }
    }

    /// Whether a blob is stored under `key` (an invalid key has none).
    public func contains(key: String) -> Bool {
        guard let path = try? path(forKey: key) else { return false }
        return cache.object(forKey: key) != nil || directory.fileExists(path)
    }

    /// The format of the blob under `key`, from its first bytes; `nil` when there is none.
    /// - Throws: ``StoreError``, as ``data(forKey:)``.
    public func imageKind(forKey key: String) throws(StoreError) -> ImageKind? {
        try data(forKey: key).map { ImageKind(bytes: $0) }
    }

    /// The file URL of `key`'s blob. Corresponds to the seeds' `imageURL(forKey:)`.
    /// - Throws: ``StoreError`` `.invalidKey`.
    public func url(forKey key: String) throws(StoreError) -> URL {
        let path = try path(forKey: key)
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
            return try directory.contentsOfDirectory(folder)
        } catch {
            throw StoreError(.readFailed, wrapping: error)
        }
    }

    private func path(forKey key: String) throws(StoreError) -> String {
        try Self.validate(key: key)
        return folder.map { "\($0)/\(key)" } ?? key
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
