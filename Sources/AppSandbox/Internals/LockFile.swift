import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Advisory locks (`flock`) on lock files: how they are named, opened, checked and
/// waited for. The one implementation behind ``FileCoordinator`` and the preferences
/// lock of `AppDefaults`.
///
/// A lock file is opened relative to a directory descriptor with
/// `O_NOFOLLOW | O_NONBLOCK` (a link planted at its name is refused, a FIFO does not
/// block the open), then checked with `fstat` before it is trusted: a regular file,
/// owned by this process's effective user, not writable by group or others. Anything
/// else is `SandboxError.Code.untrustedLock`. Lock files are opened read-only
/// (`flock` needs no more), so a directory watch for written files does not fire.
///
/// Waiting polls `flock(LOCK_NB)`, sleeping 1, 2, 4… up to 10 ms between tries, until
/// the deadline (`SandboxError.Code.timedOut`, naming the lock file) or a
/// cancellation (`SandboxError.Code.cancelled`). It blocks the calling thread: the
/// async entry points run it on a thread of their own.
///
/// Lock files are never deleted: deleting one while it is held would let a newcomer
/// lock a fresh file. One someone else deleted or replaced is detected (the inode at
/// the name is no longer the one locked) and the lock taken again on the new file.
struct LockFile {
    /// When waiting ends.
    struct Wait: Sendable {
        var deadline: ContinuousClock.Instant
        var isCancelled: @Sendable () -> Bool = { false }

        init(timeout: Duration, isCancelled: @escaping @Sendable () -> Bool = { false }) {
            deadline = ContinuousClock.now.advanced(by: timeout)
            self.isCancelled = isCancelled
        }
    }

    /// The lock file guarding `itemName`, beside it: `.keepsake-<name>.lock`, or
    /// `.keepsake-<FNV-1a of the name>.lock` when that would exceed 255 bytes.
    /// Internal names (the `.keepsake-` prefix) are hidden from listings and backups.
    static func name(for itemName: String) -> String {
        let plain = RelativePath.internalPrefix + itemName + ".lock"
        if plain.utf8.count <= 255 { return plain }
        return RelativePath.internalPrefix + hash(itemName) + ".lock"
    }

    /// 16 hex digits of the FNV-1a hash of `text`.
    static func hash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Whether an item owned by `status.owner` with `status.permissions` may be
    /// trusted as a lock (file or folder): ours, and no one else can write it.
    static func problem(with status: FileStatus, expected: FileStatus.Kind) -> String? {
        if status.kind != expected {
            return expected == .directory ? "the lock folder is not a folder" : "the lock file is not a regular file"
        }
        let user = UInt32(geteuid())
        if status.owner != user { return "owned by uid \(status.owner), not by this user (uid \(user))" }
        if status.permissions & 0o022 != 0 {
            return "writable by group or others (mode \(String(status.permissions, radix: 8)))"
        }
        return nil
    }

    /// Opens (creating it if needed) the lock file `name` in `parent`, checks it and
    /// locks it, shared or exclusive. Returns the descriptor holding the lock; closing
    /// it releases the lock.
    /// - Throws: ``SandboxError`` `.untrustedLock`, `.timedOut`, `.cancelled`, or the
    ///   system error of the open or the lock.
    static func acquire(
        _ system: SystemCalls, parent: Int32, name: String, path: String, exclusive: Bool, wait: Wait
    ) throws(SandboxError) -> Int32 {
        var pause: Duration = .milliseconds(1)
        while true {
            let fd = try open(system, parent: parent, name: name, path: path)
            do throws(SandboxError) {
                let held = try system.checked("stat", path) { () throws(Errno) in try system.fstat(fd) }
                if let problem = problem(with: held, expected: .regular) {
                    throw SandboxError(.untrustedLock, "refusing the lock file: \(problem)", path: path)
                }
                while true {
                    do {
                        try system.flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB)
                        break
                    } catch  where error.rawValue == EINTR {
                        continue
                    } catch  where error.rawValue == EWOULDBLOCK || error.rawValue == EAGAIN {
                        if wait.isCancelled() {
                            throw SandboxError(.cancelled, "cancelled while waiting for the lock", path: path)
                        }
                        let left = ContinuousClock.now.duration(to: wait.deadline)
                        if left <= .zero {
                            throw SandboxError(
                                .timedOut, "the lock is held by someone else and was not granted in time", path: path)
                        }
                        sleep(min(pause, left))
                        pause = min(pause * 2, .milliseconds(10))
                    } catch {
                        throw SandboxError(errno: error.rawValue, path: path, operation: "lock")
                    }
                }
                // Still the file at that name? If it was deleted or replaced meanwhile,
                // our lock guards nothing; take it again on the file there now.
                let current = try? system.fstatat(parent, name, false)
                if let current, current.inode == held.inode, current.device == held.device { return fd }
                try? system.close(fd)
            } catch {
                try? system.close(fd)
                throw error
            }
        }
    }

    /// Whether someone holds the lock file `name` in `parent` exclusively now; a
    /// missing file is not held. The probe takes a shared lock for an instant: an
    /// exclusive owner arriving then waits its next poll, or fails if it may not wait.
    static func isHeld(_ system: SystemCalls, parent: Int32, name: String) -> Bool {
        guard let fd = try? system.openat(parent, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0) else {
            return false
        }
        defer { try? system.close(fd) }
        return (try? system.flock(fd, LOCK_SH | LOCK_NB)) == nil
    }

    private static func open(_ system: SystemCalls, parent: Int32, name: String, path: String) throws(SandboxError)
        -> Int32
    {
        let flags = O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        while true {
            do {
                return try system.openat(parent, name, flags, 0o600)
            } catch  where error.rawValue == EINTR {
                continue
            } catch  where error.rawValue == ELOOP {
                throw SandboxError(.untrustedLock, "refusing the lock file: it is a symbolic link", path: path)
            } catch {
                throw SandboxError(errno: error.rawValue, path: path, operation: "open lock file")
            }
        }
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}

/// A flag an async caller's cancellation handler sets and a blocked wait polls.
final class CancellationFlag: Sendable {
    private let flag = Locked(false)
    func cancel() { flag.withLock { $0 = true } }
    var isCancelled: Bool { flag.withLock { $0 } }
}
