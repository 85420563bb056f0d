public import PropertyList

/// The error the lifecycle layer throws.
///
/// Carries a ``Code`` to match on (`catch LifecycleError.Code.illegalTransition`) and,
/// where a system call failed, the sandbox's error for it (its path and `errno`) as
/// ``underlyingError``.
public struct LifecycleError: KeepsakeError {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<LifecycleError>

    public var code: Code
    /// A human-readable account of what failed.
    public var message: String
    public var context: [String] { [] }
    /// The failed system call, as a `SandboxError` with its path and `errno`.
    public var underlyingError: (any Error)?

    public init(_ code: Code, _ message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }
}

extension ErrorCode<LifecycleError> {
    /// Lets `catch .illegalTransition` match a thrown ``LifecycleError`` by its code.
    public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// A state change iOS never makes (see ``ApplicationState/canMove(to:)``).
    public static let illegalTransition = Self("illegalTransition")
    /// Memory pressure cannot be watched this way here: no PSI file, no permission
    /// to arm a trigger, no `/proc/meminfo`.
    public static let pressureUnavailable = Self("pressureUnavailable")
    /// A system call failed; ``LifecycleError/underlyingError`` tells which.
    public static let systemError = Self("systemError")
}
