#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a new version of one file beside it and swaps it in, so that readers and a
/// crash at any instant see either the old content or the new, never a mix.
///
/// The steps, each a fault-injection point in the tests:
/// 1. `open` a temporary file in the same directory with `O_CREAT | O_EXCL | O_CLOEXEC`;
///    give it the previous file's permission bits (and owner and group where the
///    process may; `EPERM` from `fchown` is ignored because an ordinary user cannot
///    give a file away);
/// 2. `write` everything, continuing after short writes and retrying `EINTR`;
/// 3. `fsync` it — never retried: after a failed `fsync` the kernel may have dropped
///    the dirty pages, and a second call that succeeds would lie;
/// 4. `close` it — `EINTR` counts as closed, because Linux releases the descriptor
///    before reporting it and a retry could close someone else's;
/// 5. hard-link the previous version to a second temporary name, so step 7 can undo;
/// 6. `rename` the temporary file over the target;
/// 7. `fsync` the directory so the rename itself is durable. If that fails the
///    previous version is renamed back (or the new file removed when there was
///    none): the caller is told the save failed and finds the file as it was;
/// 8. unlink the link to the previous version.
///
/// On any failure the temporary files are removed and the *first* error is thrown;
/// errors during that cleanup are ignored, because the first one says what the
/// caller needs to know. A crash between steps can leave a `.keepsake-*.tmp` or
/// `.keepsake-*.old` file behind, never a damaged target; listings and backups skip
/// such names.
struct DurableWriter {
    /// Replace whatever is there, or create a file that must not exist yet (copies).
    enum Mode { case replace, createNew }

    private let system: SystemCalls
    private let parent: Int32
    private let name: String
    private let path: String
    private let mode: Mode
    private let temporaryName: String
    private let previous: FileStatus?
    private var fd: Int32

    /// Starts a write: checks the target and opens the temporary file (step 1).
    /// `permissions` overrides the bits taken from the previous version.
    init(system: SystemCalls, at location: Location, mode: Mode = .replace, permissions: UInt32? = nil)
        throws(SandboxError)
    {
        self.system = system
        parent = location.parent
        name = location.name
        path = location.path
        self.mode = mode
        let status: FileStatus?
        do {
            status = try system.fstatat(location.parent, location.name, false)
        } catch  where error.rawValue == ENOENT {
            status = nil
        } catch {
            throw SandboxError(errno: error.rawValue, path: location.path, operation: "stat")
        }
        if let status {
            if mode == .createNew { throw SandboxError(errno: EEXIST, path: location.path, operation: "create") }
            if status.kind == .directory { throw SandboxError(errno: EISDIR, path: location.path, operation: "write") }
            // Renaming over a FIFO or a device node would replace it with a file.
            if status.kind == .other {
                throw SandboxError(
                    .notRegularFile, "a FIFO, device or socket is never replaced by a file", path: location.path)
            }
        }
        previous = status?.kind == .regular ? status : nil
        (fd, temporaryName) = try Self.openTemporary(system, location.parent, path: location.path)
        do {
            if let bits = permissions ?? previous?.permissions {
                try system.checked("chmod", path) { () throws(Errno) in try system.fchmod(fd, bits) }
            }
            if let previous { try keepOwner(of: previous) }
        } catch {
            abandon()
            throw error
        }
    }

    private static func openTemporary(_ system: SystemCalls, _ parent: Int32, path: String) throws(SandboxError) -> (
        Int32, String
    ) {
        var attempts = 0
        while true {
            let candidate = RelativePath.internalPrefix + randomHex() + ".tmp"
            do {
                let flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC
                return (try system.open(parent, candidate, flags: flags, mode: 0o666, path: path), candidate)
            } catch .fileExists where attempts < 8 {
                attempts += 1
            }
        }
    }

    private func keepOwner(of previous: FileStatus) throws(SandboxError) {
        let current = try system.checked("stat", path) { () throws(Errno) in try system.fstat(fd) }
        guard current.owner != previous.owner || current.group != previous.group else { return }
        do {
            try system.fchown(fd, previous.owner, previous.group)
        } catch  where error.rawValue == EPERM || error.rawValue == EINVAL {
            // Not ours to give away; the file keeps its mode but becomes ours.
        } catch {
            throw SandboxError(errno: error.rawValue, path: path, operation: "chown")
        }
    }

    /// Appends bytes (step 2).
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(SandboxError) {
        var offset = 0
        while offset < bytes.count {
            do throws(Errno) {
                let written = try system.write(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                // A zero-byte write of a non-empty buffer would loop forever.
                if written <= 0 { throw Errno(EIO) }
                offset += written
            } catch  where error.rawValue == EINTR {
                continue
            } catch {
                abandon()
                throw SandboxError(errno: error.rawValue, path: path, operation: "write")
            }
        }
    }

    /// Makes the new content durable and puts it in place (steps 3–8).
    mutating func commit() throws(SandboxError) {
        do {
            try system.fsync(fd)
        } catch {
            abandon()
            throw Self.syncError(error, path: path)
        }
        try closeAndSwapIn(synchronized: true)
    }

    /// Puts the new content in place without any `fsync` (steps 4 and 6 of a
    /// `.replace`): readers see the old content or the new, never a mix, but a crash
    /// may leave either, or an empty or torn file. Only for a caller that holds the
    /// bytes durably elsewhere (a journal) and writes them again after a crash.
    mutating func commitUnsynchronized() throws(SandboxError) {
        precondition(mode == .replace, "only a replace can skip the fsync")
        try closeAndSwapIn(synchronized: false)
    }

    private mutating func closeAndSwapIn(synchronized: Bool) throws(SandboxError) {
        do {
            try system.close(fd)
        } catch  where error.rawValue == EINTR {
            // Closed anyway; see step 4.
        } catch {
            // Linux releases the descriptor even when close fails.
            fd = -1
            abandon()
            throw SandboxError(errno: error.rawValue, path: path, operation: "close")
        }
        fd = -1
        switch mode {
        case .replace where !synchronized: try rename()
        case .replace: try swapIn()
        case .createNew: try linkIn()
        }
    }

    private func swapIn() throws(SandboxError) {
        var priorName: String?
        if previous != nil {
            let candidate = RelativePath.internalPrefix + Self.randomHex() + ".old"
            // Without a hard link (file systems that lack them) the replace still
            // happens; only the undo after a failed directory fsync is lost.
            if (try? system.linkat(parent, name, parent, candidate)) != nil { priorName = candidate }
        }
        do {
            try rename()
        } catch {
            if let priorName { try? system.unlinkat(parent, priorName, false) }
            throw error
        }
        do {
            try system.fsync(parent)
        } catch {
            if let priorName {
                try? system.renameat(parent, priorName, parent, name)
            } else if previous == nil {
                try? system.unlinkat(parent, name, false)
            }
            throw Self.syncError(error, path: path)
        }
        if let priorName { try? system.unlinkat(parent, priorName, false) }
    }

    /// Step 6: renames the temporary file over the target, or removes it on failure.
    private func rename() throws(SandboxError) {
        do {
            try system.rename(parent, temporaryName, parent, name, path: path)
        } catch {
            try? system.unlinkat(parent, temporaryName, false)
            throw error
        }
    }

    /// `createNew`: a hard link fails with `EEXIST` instead of replacing, which makes
    /// "create if absent" atomic.
    private func linkIn() throws(SandboxError) {
        do {
            try system.linkat(parent, temporaryName, parent, name)
        } catch {
            try? system.unlinkat(parent, temporaryName, false)
            throw SandboxError(errno: error.rawValue, path: path, operation: "create")
        }
        try? system.unlinkat(parent, temporaryName, false)
        do {
            try system.fsync(parent)
        } catch {
            try? system.unlinkat(parent, name, false)
            throw Self.syncError(error, path: path)
        }
    }

    /// Closes and removes the temporary file, ignoring errors: the caller is already
    /// reporting the one that matters.
    mutating func abandon() {
        if fd >= 0 { try? system.close(fd) }
        fd = -1
        try? system.unlinkat(parent, temporaryName, false)
    }

    /// A failed `fsync` is an I/O error whatever `errno` says, `EINTR` included.
    private static func syncError(_ error: Errno, path: String) -> SandboxError {
        var mapped = SandboxError(errno: error.rawValue, path: path, operation: "fsync")
        if error.rawValue == EINTR { mapped.code = .ioError }
        return mapped
    }

    private static func randomHex() -> String {
        let value = UInt64.random(in: .min ... .max)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
