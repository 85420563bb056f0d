import AppRuntime
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
/// has an advisory lock (`flock`) on a lock file beside it, `.keepsake-<name>.lock` in
/// the item's own folder, so every process that reaches the file reaches the same lock
/// — whatever its `TMPDIR`, in a container or on a shared volume. (An explicit
/// ``lockDirectory`` puts the lock files there instead, named after a hash of the
/// item's real path; processes then coordinate only if they agree on it.)
///
/// A lock file is opened without following links and without blocking, and is trusted
/// only when it is a regular file owned by this user that group and others cannot
/// write; a lock folder likewise. Anything else is refused with
/// `SandboxError.Code.untrustedLock`. A lock held by someone else is waited for at
/// most ``timeout`` (`SandboxError.Code.timedOut`, naming the lock file). The
/// synchronous calls wait on the caller's thread, for code ported from the books; the
/// `async` ones wait on a thread of their own and honour task cancellation
/// (`SandboxError.Code.cancelled`).
///
/// Every acquisition opens its own descriptor, so threads of one process exclude
/// each other as processes do (`flock` locks belong to the open file description).
/// Several intents are locked in one canonical order (by lock path), so two
/// coordinators asking for the same files in different orders cannot deadlock.
/// Coordinating again on an item from inside its own accessor waits until the
/// timeout, as it would with nested `NSFileCoordinator` calls on different
/// coordinators: pass every item in one call instead.
///
/// Readers never see a half-written file in any case when writers use
/// `FileSystem.write(_:to:)`; coordination adds that a read-modify-write
/// is not interleaved with another.
///
/// ```swift
/// let coordinator = FileCoordinator(timeout: .seconds(2))
/// try coordinator.coordinate(writingItemAt: counterURL) { url in
///     let count = Int(try FileSystem.default.string(contentsOf: url)) ?? 0
///     try FileSystem.default.write(String(count + 1), to: url)
/// }
/// ```
public struct FileCoordinator: Sendable {
    /// Where the lock files live; nil (the default) keeps each beside its item.
    public let lockDirectory: URL?
    /// The longest a coordination waits for a lock someone else holds.
    public var timeout: Duration
    let system: SystemCalls

    /// - Parameters:
    ///   - lockDirectory: a folder for the lock files, created (mode 700) if missing;
    ///     nil puts each lock file beside its item.
    ///   - timeout: the longest a coordination waits for a lock (5 seconds by default).
    public init(lockDirectory: URL? = nil, timeout: Duration = .seconds(5)) {
        self.init(lockDirectory: lockDirectory, timeout: timeout, system: .live)
    }

    package init(lockDirectory: URL?, timeout: Duration = .seconds(5), system: SystemCalls) {
        self.lockDirectory = lockDirectory
        self.timeout = timeout
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
    /// reading one on the same item), runs `body`, releases them. Waits on the calling
    /// thread; a cancelled calling task stops the wait.
    /// Corresponds to `coordinate(with:queue:byAccessor:)`, run synchronously.
    public func coordinate<T>(with intents: [FileAccessIntent], byAccessor body: () throws -> T) throws -> T {
        try coordinate(intents, wait: LockFile.Wait(timeout: timeout, isCancelled: { Task.isCancelled }), body)
    }

    /// ``coordinate(with:byAccessor:)`` waiting for the locks, and running `body`, on a
    /// thread of its own, never on the cooperative pool. Cancelling the task stops the
    /// wait with `SandboxError.Code.cancelled`; a `body` already running finishes.
    /// Corresponds to `coordinate(with:queue:byAccessor:)`.
    public func coordinate<T: Sendable>(
        with intents: [FileAccessIntent], byAccessor body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        let flag = CancellationFlag()
        let wait = LockFile.Wait(timeout: timeout, isCancelled: { flag.isCancelled })
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                BackgroundThread.start(name: "keepsake.lock") {
                    continuation.resume(with: Result { try self.coordinate(intents, wait: wait, body) })
                }
            }
        } onCancel: {
            flag.cancel()
        }
    }

    /// Runs `body` holding the write lock of the file `relativePath` in `directory`,
    /// the lock file beside it reached through the contained resolver: no link is
    /// followed to it, and a link in the way that leads out of the directory is refused.
    /// Creates the directory (and the folders on the way) if needed.
    package func coordinate<T>(
        writing relativePath: String, in directory: SandboxDirectory, isCancelled: @escaping @Sendable () -> Bool,
        _ body: () throws -> T
    ) throws -> T {
        var components = try RelativePath.components(of: relativePath)
        let itemName = components.removeLast()
        let wait = LockFile.Wait(timeout: timeout, isCancelled: isCancelled)
        let outcome = try directory.withResolver { resolver throws(SandboxError) -> Result<T, any Error> in
            let location = try resolver.item(
                components + [LockFile.name(for: itemName)], followFinalLink: false,
                createIntermediates: true)
            defer { location.release(system) }
            let fd = try LockFile.acquire(
                system, parent: location.parent, name: location.name, path: location.path, exclusive: true,
                wait: wait)
            defer { try? system.close(fd) }
            return Result { try body() }
        }
        return try outcome.get()
    }

    // MARK: Locks

    private struct Target {
        /// The folder holding the lock file, and the file's name in it.
        var folder: String
        var name: String
        var key: String { folder + "/" + name }
    }

    func coordinate<T>(_ intents: [FileAccessIntent], wait: LockFile.Wait, _ body: () throws -> T) throws
        -> T
    {
        var wanted: [String: (Target, FileAccessIntent.Kind)] = [:]
        for intent in intents {
            let target = self.target(for: intent.url)
            if wanted[target.key]?.1 != .writing { wanted[target.key] = (target, intent.kind) }
        }
        if lockDirectory != nil { try ensureLockDirectory() }
        var held: [Int32] = []
        defer { for fd in held.reversed() { try? system.close(fd) } }
        for (_, (target, kind)) in wanted.sorted(by: { $0.key < $1.key }) {
            let folder = try openFolder(target.folder)
            defer { try? system.close(folder) }
            held.append(
                try LockFile.acquire(
                    system, parent: folder, name: target.name, path: target.key, exclusive: kind == .writing,
                    wait: wait))
        }
        return try body()
    }

    /// Where the lock of the item at `url` is: beside it (its folder's real path, so
    /// links to the folder agree), or in ``lockDirectory``.
    private func target(for url: URL) -> Target {
        let standardized = url.standardizedFileURL
        if let lockDirectory { return Target(folder: lockDirectory.path, name: lockName(for: url)) }
        let parent = standardized.deletingLastPathComponent().path
        let canonicalParent = (try? system.realpath(parent)) ?? parent
        return Target(folder: canonicalParent, name: LockFile.name(for: standardized.lastPathComponent))
    }

    /// The lock file's name in an explicit ``lockDirectory``: FNV-1a of the item's
    /// canonical path (real path of the parent folder plus the name, so links to the
    /// folder agree). Two items whose hashes collide merely share a lock.
    func lockName(for url: URL) -> String {
        let standardized = url.standardizedFileURL
        let parent = standardized.deletingLastPathComponent().path
        let canonicalParent = (try? system.realpath(parent)) ?? parent
        return LockFile.hash(canonicalParent + "/" + standardized.lastPathComponent) + ".lock"
    }

    /// Creates ``lockDirectory`` (mode 700, its parents as `mkdir -p` would) if missing.
    private func ensureLockDirectory() throws(SandboxError) {
        guard let lockDirectory else { return }
        let parent = lockDirectory.deletingLastPathComponent()
        try FileSystem(system: system).createDirectory(at: parent, withIntermediateDirectories: true)
        let parentFD = try system.open(
            AT_FDCWD, parent.path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: parent.path)
        defer { try? system.close(parentFD) }
        do {
            try system.makeDirectory(parentFD, lockDirectory.lastPathComponent, 0o700)
        } catch  where error.rawValue == EEXIST {
            // Checked when opened.
        } catch {
            throw SandboxError(errno: error.rawValue, path: lockDirectory.path, operation: "create lock folder")
        }
    }

    /// Opens the folder a lock file is in. ``lockDirectory`` is opened without
    /// following a link and trusted only when it is a folder of ours that no one else
    /// can write; an item's own folder is opened as its URL says.
    private func openFolder(_ path: String) throws(SandboxError) -> Int32 {
        guard lockDirectory != nil else {
            return try system.open(AT_FDCWD, path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: path)
        }
        let fd: Int32
        do {
            fd = try system.open(
                AT_FDCWD, path, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, path: path)
        } catch .tooManySymbolicLinks, .notADirectory {
            throw SandboxError(
                .untrustedLock, "refusing the lock folder: it is a symbolic link or not a folder", path: path)
        }
        do throws(SandboxError) {
            let status = try system.checked("stat", path) { () throws(Errno) in try system.fstat(fd) }
            if let problem = LockFile.problem(with: status, expected: .directory) {
                throw SandboxError(.untrustedLock, "refusing the lock folder: \(problem)", path: path)
            }
            return fd
        } catch {
            try? system.close(fd)
            throw error
        }
    }
}
