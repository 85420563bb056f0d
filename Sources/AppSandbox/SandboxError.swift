public import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one error every sandbox API throws.
///
/// Carries a ``Code`` to match on, the path it concerns and, when a system call failed,
/// the `errno` it returned. Corresponds to the `CocoaError`/`POSIXError` pair that
/// `FileManager` and `Data.write(to:options:)` throw on Apple platforms.
///
/// ```swift
/// do {
///     try container.directory(.documents).write(data, to: "items.archive")
/// } catch .noSpace {
///     showDiskFullAlert()
/// }
/// ```
public struct SandboxError: KeepsakeError, Hashable {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<SandboxError>

    public var code: Code
    /// A human-readable account of what failed.
    public var message: String
    /// The path concerned, where known.
    public var path: String?
    /// The `errno` a system call returned, where one failed.
    public var errno: Int32?

    public init(_ code: Code, _ message: String, path: String? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// The single place where a system error becomes a ``SandboxError``.
    package init(errno value: Int32, path: String?, operation: String) {
        let code: Code
        switch value {
        case ENOENT: code = .noSuchFile
        case EEXIST: code = .fileExists
        case ENOTDIR: code = .notADirectory
        case EISDIR: code = .isADirectory
        case ENOTEMPTY: code = .directoryNotEmpty
        case EACCES, EPERM: code = .permissionDenied
        case ENOSPC, EDQUOT: code = .noSpace
        case EROFS: code = .readOnly
        case EIO: code = .ioError
        case ELOOP: code = .tooManySymbolicLinks
        case ENAMETOOLONG: code = .invalidName
        default: code = .systemError
        }
        let reason = strerror(value).map { String(cString: $0) } ?? "error \(value)"
        self.init(code, "\(operation) failed: \(reason)", path: path, errno: value)
    }

    public var context: [String] { path.map { [$0] } ?? [] }
}

extension ErrorCode<SandboxError> {
    /// Lets `catch .noSpace` match a thrown ``SandboxError`` by its code.
    public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// No file or directory at the path (`ENOENT`).
    public static let noSuchFile = Self("noSuchFile")
    /// Something already exists where a new item was to be created (`EEXIST`).
    public static let fileExists = Self("fileExists")
    /// A directory was expected, something else was found (`ENOTDIR`).
    public static let notADirectory = Self("notADirectory")
    /// A file was expected, a directory was found (`EISDIR`).
    public static let isADirectory = Self("isADirectory")
    /// A directory to replace or remove without recursion is not empty (`ENOTEMPTY`).
    public static let directoryNotEmpty = Self("directoryNotEmpty")
    /// The process may not do this (`EACCES`, `EPERM`).
    public static let permissionDenied = Self("permissionDenied")
    /// The file system or the user's quota is full (`ENOSPC`, `EDQUOT`).
    public static let noSpace = Self("noSpace")
    /// The file system is mounted read-only (`EROFS`).
    public static let readOnly = Self("readOnly")
    /// The device reported an error; data may not have reached it (`EIO`, and any
    /// failed `fsync`, including one interrupted by a signal).
    public static let ioError = Self("ioError")
    /// A key, name or relative path would resolve outside the container or outside
    /// the directory asked for (`..`, absolute path, symbolic link pointing out).
    public static let outsideContainer = Self("outsideContainer")
    /// A name is empty, too long, contains NUL or a look-alike of `/`, or an app
    /// identifier is not a bundle identifier.
    public static let invalidName = Self("invalidName")
    /// Symbolic links nest too deeply (`ELOOP`).
    public static let tooManySymbolicLinks = Self("tooManySymbolicLinks")
    /// Text could not be converted to or from the requested encoding.
    public static let invalidEncoding = Self("invalidEncoding")
    /// A backup archive is malformed or holds entries a restore refuses.
    public static let invalidBackup = Self("invalidBackup")
    /// A FIFO, device or socket was found where a regular file was expected; it is
    /// refused rather than read, which could block forever, or replaced, which would
    /// destroy it.
    public static let notRegularFile = Self("notRegularFile")
    /// A lock file or lock folder cannot be trusted: it is owned by another user,
    /// writable by group or others, a symbolic link, or not a file (or folder).
    public static let untrustedLock = Self("untrustedLock")
    /// A lock held by someone else was not granted within the timeout; the
    /// ``SandboxError/path`` names the lock file.
    public static let timedOut = Self("timedOut")
    /// The task waiting for a lock was cancelled.
    public static let cancelled = Self("cancelled")
    /// A journal's header is damaged in both of its copies while records follow it:
    /// which checkpoint they apply to cannot be told, and starting without them could
    /// hide acknowledged changes. The message names the file and how to go on.
    public static let damagedJournal = Self("damagedJournal")
    /// Any other system error; ``SandboxError/errno`` tells which.
    public static let systemError = Self("systemError")
    /// The container has nothing that answers the request (a search-path directory
    /// iOS gives apps no counterpart of).
    public static let unsupported = Self("unsupported")
}
