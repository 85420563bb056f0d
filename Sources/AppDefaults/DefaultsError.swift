import AppSandbox
public import PropertyList

/// The one error every user-defaults API throws or reports.
///
/// Carries a ``Code`` to match on and what it concerns: the domain, the key (with a
/// key path inside it for nested values), the preferences file, and the error of the
/// layer underneath (`SandboxError`, `PropertyListError`, a `DecodingError`).
/// Foundation's `UserDefaults` has no errors at all: it drops what it cannot store and
/// reads a corrupt file as empty.
///
/// ```swift
/// do {
///     try defaults.set(["when": Date(), "who": someObject], forKey: "last")
/// } catch .notPropertyList {
///     print("only strings, numbers, dates, data, arrays and dictionaries can be stored")
/// }
/// ```
public struct DefaultsError: KeepsakeError {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<DefaultsError>

    public var code: Code
    /// A human-readable account of what failed.
    public var message: String
    /// The defaults domain concerned, where known.
    public var domain: String?
    /// The key concerned, with a path inside its value (`items[2].name`), where known.
    public var keyPath: String?
    /// The preferences file concerned, where known.
    public var path: String?
    /// Where a corrupt file was moved, kept for inspection.
    public var movedTo: String?
    /// The error of the layer underneath, where there was one.
    public var underlyingError: (any Error)?

    public init(
        _ code: Code, _ message: String, domain: String? = nil, keyPath: String? = nil,
        path: String? = nil, movedTo: String? = nil, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.domain = domain
        self.keyPath = keyPath
        self.path = path
        self.movedTo = movedTo
        self.underlyingError = underlyingError
    }

    public var context: [String] {
        var context: [String] = []
        if let domain { context.append("domain \(domain)") }
        if let keyPath { context.append("at \(keyPath)") }
        if let path { context.append(path) }
        if let movedTo { context.append("moved to \(movedTo)") }
        return context
    }
}

extension ErrorCode<DefaultsError> {
    /// Lets `catch .corruptFile` match a thrown ``DefaultsError`` by its code.
    public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// A value to store is not a property-list value (or holds one that is not).
    public static let notPropertyList = Self("notPropertyList")
    /// A preferences file is not a binary, XML, OpenStep or JSON plist holding a
    /// dictionary. The file was moved aside (see ``DefaultsError/movedTo``).
    public static let corruptFile = Self("corruptFile")
    /// A `Codable` value could not be encoded.
    public static let encodingFailed = Self("encodingFailed")
    /// A stored value could not be decoded as the type asked for.
    public static let decodingFailed = Self("decodingFailed")
    /// A domain or suite name cannot name a preferences file, or names the app's
    /// own domain or the global domain where a suite is expected.
    public static let invalidDomain = Self("invalidDomain")
    /// Reading, writing or locking a preferences file failed; the sandbox error is
    /// the ``DefaultsError/underlyingError``.
    public static let fileSystem = Self("fileSystem")
    /// The cross-process lock of a domain was held by another process for longer
    /// than ``Defaults/Configuration/lockTimeout``; ``DefaultsError/path`` names
    /// the lock file. Nothing was written.
    public static let timedOut = Self("timedOut")
}

extension DefaultsError {
    /// The single place where a sandbox failure becomes a ``DefaultsError``.
    init(_ error: SandboxError, domain: String, operation: String) {
        self.init(
            error.code == .timedOut ? .timedOut : .fileSystem, "\(operation) failed", domain: domain,
            path: error.path, underlyingError: error)
    }
}
