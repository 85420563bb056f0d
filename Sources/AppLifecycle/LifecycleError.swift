public import PropertyList

/// The error the lifecycle layer throws.
///
/// Carries a ``Code`` to match on (`catch LifecycleError.Code.illegalTransition`) and,
/// where a system call failed, the sandbox's error for it (its path and `errno`) as
/// ``underlyingError``.
public struct LifecycleError: KeepsakeError {
    /// What went wrong. New codes may be added; match the ones you handle.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A state change iOS never makes (see ``ApplicationState/canMove(to:)``).
        public static let illegalTransition = Code("illegalTransition")
        /// Memory pressure cannot be watched this way here: no PSI file, no permission
        /// to arm a trigger, no `/proc/meminfo`.
        public static let pressureUnavailable = Code("pressureUnavailable")
        /// A system call failed; ``LifecycleError/underlyingError`` tells which.
        public static let systemError = Code("systemError")

        /// Lets `catch LifecycleError.Code.illegalTransition` match by code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            code.matches(error, as: LifecycleError.self)
        }
    }

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
