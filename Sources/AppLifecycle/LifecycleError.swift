/// The error the lifecycle layer throws.
///
/// Carries a ``Code`` to match on (`catch LifecycleError.Code.illegalTransition`) and,
/// where a system call failed, the `errno` it returned.
public struct LifecycleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New codes may be added; match the ones you handle.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A state change iOS never makes (see ``ApplicationState/canMove(to:)``).
        public static let illegalTransition = Code("illegalTransition")
        /// Memory pressure cannot be watched this way here: no PSI file, no permission
        /// to arm a trigger, no `/proc/meminfo`.
        public static let pressureUnavailable = Code("pressureUnavailable")
        /// A system call failed; ``LifecycleError/errno`` tells which error.
        public static let systemError = Code("systemError")

        /// Lets `catch LifecycleError.Code.illegalTransition` match by code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? LifecycleError)?.code == code
        }
    }

    public var code: Code
    /// A human-readable account of what failed.
    public var message: String
    /// The file concerned, where there is one.
    public var path: String?
    /// The `errno` a system call returned, where one failed.
    public var errno: Int32?

    public init(_ code: Code, _ message: String, path: String? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let path { text += " (\(path))" }
        if let errno { text += " [errno \(errno)]" }
        return text
    }
}
