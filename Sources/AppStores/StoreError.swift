public import AppSandbox
import KeyedArchive
public import PropertyList

/// The one error the stores throw.
///
/// Carries a ``Code`` to match on, the key or file concerned and the error that caused
/// it (a `SandboxError` from the file layer, a `KeyedArchiveError` from the
/// archiver) as ``underlyingError``.
///
/// ```swift
/// do {
///     try itemStore.save()
/// } catch StoreError.Code.writeFailed {
///     // the previous archive is intact and the store still has unsaved changes
/// }
/// ```
public struct StoreError: KeepsakeError {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<StoreError>

    public var code: Code
    /// A human-readable account of what failed.
    public var message: String
    /// The blob key concerned, where there is one.
    public var key: String?
    /// The file concerned, where there is one.
    public var path: String?
    /// What caused it: a `SandboxError` or a `KeyedArchiveError`.
    public var underlyingError: (any Error)?
    /// With `.conflict`: every item in conflict, with its ancestor, local and server
    /// versions.
    public var conflicts: [RecordConflict] = []

    public init(
        _ code: Code, _ message: String, key: String? = nil, path: String? = nil, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.key = key
        self.path = path
        self.underlyingError = underlyingError
    }

    /// The file layer's code when a file operation failed (`.noSpace`, `.ioError`,
    /// `.outsideContainer`…).
    public var sandboxCode: SandboxError.Code? { (underlyingError as? SandboxError)?.code }

    /// The single place where a file-layer error becomes a ``StoreError``: containment
    /// and name errors are invalid keys, everything else keeps `code`.
    init(_ code: Code, wrapping error: SandboxError, key: String? = nil, path: String? = nil) {
        let mapped: Code =
            (error.code == .outsideContainer || error.code == .invalidName) && key != nil ? .invalidKey : code
        self.init(mapped, error.message, key: key, path: path ?? error.path, underlyingError: error)
    }

    public var context: [String] {
        [key.map { "key \($0)" }, path].compactMap { $0 }
    }
}

extension ErrorCode<StoreError> {
    /// Lets `catch .writeFailed` match a thrown ``StoreError`` by its code.
    public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// The saved archive exists but is not an archive of the store's items. It is
    /// left as it is; nothing replaces it until the caller decides.
    public static let corruptArchive = Self("corruptArchive")
    /// Reading a file failed (other than its absence).
    public static let readFailed = Self("readFailed")
    /// Writing a file failed; the previous file is intact. See
    /// ``StoreError/sandboxCode`` (`.noSpace`, `.ioError`, …).
    public static let writeFailed = Self("writeFailed")
    /// Removing a file failed.
    public static let deleteFailed = Self("deleteFailed")
    /// The items could not be archived.
    public static let encodingFailed = Self("encodingFailed")
    /// A blob key is empty, contains `/` or NUL, is `.` or `..`, is too long, or
    /// would otherwise name something outside the store's folder.
    public static let invalidKey = Self("invalidKey")
    /// A shared backend's save found items changed here that someone else had
    /// changed since this store read them; nothing was saved. ``StoreError/conflicts``
    /// holds each one's three versions.
    public static let conflict = Self("conflict")
}
