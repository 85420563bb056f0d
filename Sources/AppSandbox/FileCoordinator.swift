public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Coordinated reading and writing of files across threads and processes.
///
/// Corresponds to `NSFileCoordinator`. Readers share, a writer is alone: each item
/// has an advisory lock (`flock`) on a lock file named after a hash of the item's
/// real path, in ``lockDirectory`` (default: `keepsake-coordination-<uid>` in the
/// system's temporary directory), so processes that coordinate on the same file
/// find the same lock without writing anything beside the file. Lock files are
/// never deleted: deleting one while it is held would let a newcomer lock a fresh
/// file; a lock file someone else deleted is detected (its inode changed) and the
/// lock taken again.
///
/// Every acquisition opens its own descriptor, so threads of one process exclude
/// each other as processes do (`flock` locks belong to the open file description).
/// Several intents are locked in one canonical order (by lock name), so two
/// coordinators asking for the same files in different orders cannot deadlock.
/// Coordinating again on an item from inside its own accessor waits forever, as it
/// would with nested `NSFileCoordinator` calls on different coordinators: pass
/// every item in one call instead.
///
/// Readers never see a half-written file in any case when writers use
/// `FileSystem.write(_:to:)`; coordination adds that a read-modify-write
/// is not interleaved with another.
///
/// ```swift
/// let coordinator = FileCoordinator()
/// try coordinator.coordinate(writingItemAt: counterURL) { url in
///     let count = Int(try FileSystem.default.string(contentsOf: url)) ?? 0
///     try FileSystem.default.write(String(count + 1), to: url)
/// }
/// ```
public struct FileCoordinator: Sendable {
    /// Where the lock files live; processes coordinate only if they agree on it.
    public let lockDirectory: URL
    let system: SystemCalls

    public init(lockDirectory: URL? = nil) {
        self.init(lockDirectory: lockDirectory, system: .live)
    }

    package init(lockDirectory: URL?, system: SystemCalls) {
        self.lockDirectory =
            lockDirectory
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("keepsake-coordination-\(getuid())", isDirectory: true)
        self.system = system
    }

    /// Runs `reader` while no one writes the item at `url`.
    /// Corresponds to `coordinate(readingItemAt:options:error:byAccessor:)`.
    /// - Throws: ``SandboxError`` when the lock cannot be taken, or what `reader` throws.
    public func coordinate<T>(readingItemAt url: URL, byAccessor reader: (URL) throws -> T) throws -> T {
        try coordinate(with: [.readingIntent(with: url)]) { try reader(url) }
    }

    /// Runs `writer` while no one else reads or writes the item at `url`.
    /// Corresponds to `coordinate(writingItemAt:options:error:byAccessor:)`.
    public func coordinate<T>(writingItemAt url: URL, byAccessor writer: (URL) throws -> T) throws -> T {
        try coordinate(with: [.writingIntent(with: url)]) { try writer(url) }
    }

    /// Reads one item and writes another under one coordination, e.g. to copy.
    /// Corresponds to `coordinate(readingItemAt:options:writingItemAt:options:error:byAccessor:)`.
    public func coordinate<T>(
        readingItemAt readingURL: URL, writingItemAt writingURL: URL, byAccessor body: (URL, URL) throws -> T
    ) throws -> T {
        try coordinate(with: [.readingIntent(with: readingURL), .writingIntent(with: writingURL)]) {
            try body(readingURL, writingURL)
        }
    }

    /// Takes every intent's lock (in canonical order, a writing intent winning over a
    /// reading one on the same item), runs `body`, releases them.
    /// Corresponds to `coordinate(with:queue:byAccessor:)`, run synchronously.
    public func coordinate<T>(with intents: [FileAccessIntent], byAccessor body: () throws -> T) throws -> T {
        var wanted: [String: FileAccessIntent.Kind] = [:]
        for intent in intents {
            let name = lockName(for: intent.url)
            if wanted[name] != .writing { wanted[name] = intent.kind }
        }
        try ensureLockDirectory()
        var held: [Int32] = []
        defer { for fd in held.reversed() { try? system.close(fd) } }
        for (name, kind) in wanted.sorted(by: { $0.key < $1.key }) {
            held.append(try lock(name, exclusive: kind == .writing))
        }
        return try body()
    }

    // MARK: Locks

    /// A stable name for the item: FNV-1a of its canonical path (real path of the
    /// parent folder plus the name, so links to the folder agree). Two items whose
    /// hashes collide merely share a lock.
    func lockName(for url: URL) -> String {
        let standardized = url.standardizedFileURL
        let parent = standardized.deletingLastPathComponent().path
        let canonicalParent = (try? system.realpath(parent)) ?? parent
        let key = canonicalParent + "/" + standardized.lastPathComponent
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits + ".lock"
    }

    private func ensureLockDirectory() throws(SandboxError) {
        do {
            try system.mkdirat(AT_FDCWD, lockDirectory.path, 0o700)
        } catch  where error.rawValue == EEXIST {
            return
        } catch  where error.rawValue == ENOENT {
            try FileSystem(system: system).createDirectory(at: lockDirectory, withIntermediateDirectories: true)
        } catch {
            throw SandboxError(errno: error.rawValue, path: lockDirectory.path, operation: "create lock directory")
        }
    }

    /// Opens and locks one lock file, waiting as long as it takes.
    private func lock(_ name: String, exclusive: Bool) throws(SandboxError) -> Int32 {
        let path = lockDirectory.appendingPathComponent(name).path
        while true {
            let fd = try system.open(AT_FDCWD, path, flags: O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600, path: path)
            do throws(SandboxError) {
                while true {
                    do {
                        try system.flock(fd, exclusive ? LOCK_EX : LOCK_SH)
                        break
                    } catch  where error.rawValue == EINTR {
                        continue
                    } catch {
                        throw SandboxError(errno: error.rawValue, path: path, operation: "lock")
                    }
                }
                // Still the file at that name? If it was deleted meanwhile, our lock
                // guards nothing; take it again on the new file.
                let held = try system.checked("stat", path) { () throws(Errno) in try system.fstat(fd) }
                let current = try? system.fstatat(AT_FDCWD, path, true)
                if let current, current.inode == held.inode, current.device == held.device { return fd }
                try? system.close(fd)
            } catch {
                try? system.close(fd)
                throw error
            }
        }
    }
}
