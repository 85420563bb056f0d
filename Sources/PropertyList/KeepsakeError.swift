/// The one shape of every public Keepsake error: a ``code`` to match on, which can gain
/// new codes without breaking anyone's `switch`; a human-readable ``message``; the
/// ``context`` the layer knows (a path, an offset, a key path); and the error of the
/// layer underneath, kept as ``underlyingError``.
///
/// It lives in the property-list layer because every other layer, the cloud stores and
/// the apps build on that one. A layer declares its error as a struct conforming to it,
/// and its codes in an extension of ``ErrorCode`` for that error:
///
/// ```swift
/// public struct ArchiveError: KeepsakeError {
///     public typealias Code = ErrorCode<ArchiveError>
///     public var code: Code
///     public var message: String
///     public var context: [String] { [] }
/// }
///
/// extension ErrorCode<ArchiveError> {
///     public static let truncated = Self("truncated")
///
///     public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }
/// }
///
/// do { try read() } catch .truncated { … }
/// ```
public protocol KeepsakeError: Error, CustomStringConvertible {
    /// What went wrong.
    var code: ErrorCode<Self> { get }
    /// A human-readable account of what failed.
    var message: String { get }
    /// What the error concerns, each item as the description prints it (`at items[3]`,
    /// `offset 12`, a path), in that order.
    var context: [String] { get }
    /// The error of the layer underneath that caused this one, where there was one.
    var underlyingError: (any Error)? { get }
}

extension KeepsakeError {
    public var underlyingError: (any Error)? { nil }

    /// `code: message (context; …): underlying error`.
    public var description: String {
        var text = "\(code): \(message)"
        if !context.isEmpty { text += " (\(context.joined(separator: "; ")))" }
        if let underlyingError { text += ": \(underlyingError)" }
        return text
    }
}

/// A name for what went wrong with a `Failure`: a struct of static constants rather
/// than an enum, so that a later version can add a code. New codes may be added; match
/// the ones you handle.
public struct ErrorCode<Failure>: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

extension ErrorCode where Failure: KeepsakeError {
    /// Whether `error` is a `Failure` with this code: the body of the `~=` each error
    /// type declares beside its codes, in its own module, so that `catch .noSpace`
    /// works wherever that module is imported (an operator declared here would need
    /// this module imported too).
    public func matches(_ error: any Error) -> Bool {
        (error as? Failure)?.code == self
    }
}
