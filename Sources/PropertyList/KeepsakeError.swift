/// The one shape of every public Keepsake error: a ``code`` to match on, which can gain
/// new codes without breaking anyone's `switch`; a human-readable ``message``; the
/// ``context`` the layer knows (a path, an offset, a key path); and the error of the
/// layer underneath, kept as ``underlyingError``.
///
/// It lives in the property-list layer because every other layer, the cloud stores and
/// the apps build on that one. Each layer declares its error as a struct conforming to
/// it, with a nested `Code`:
///
/// ```swift
/// public struct ArchiveError: KeepsakeError {
///     public struct Code: ErrorCode {
///         public let rawValue: String
///         public init(_ rawValue: String) { self.rawValue = rawValue }
///         public static let truncated = Code("truncated")
///         public static func ~= (code: Code, error: any Error) -> Bool { code.matches(error, as: ArchiveError.self) }
///     }
///     public var code: Code
///     public var message: String
///     public var context: [String] { [] }
/// }
/// ```
public protocol KeepsakeError: Error, CustomStringConvertible {
    associatedtype Code: ErrorCode
    /// What went wrong.
    var code: Code { get }
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

/// A name for what went wrong: a struct of static constants rather than an enum, so that
/// a later version can add a code. Each declares its own `~=` (through
/// ``matches(_:as:)``), so that `catch .truncated` finds the code by its name alone.
public protocol ErrorCode: Sendable, Hashable, CustomStringConvertible {
    var rawValue: String { get }
    init(_ rawValue: String)
}

extension ErrorCode {
    public var description: String { rawValue }

    /// Whether `error` is a `Failure` with this code: the body of each code's `~=`.
    public func matches<Failure: KeepsakeError>(_ error: any Error, as _: Failure.Type) -> Bool
    where Failure.Code == Self {
        (error as? Failure)?.code == self
    }
}
