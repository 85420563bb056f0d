/// Why a change to a ubiquitous store was refused or could not be kept.
public struct UbiquitousStoreError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The change would break Apple's limits (``UbiquitousStoreLimits``); nothing
        /// changed.
        case quotaViolation
        /// The value is not a property list.
        case notAPropertyList
        /// The store's file could not be read or written; on a write, nothing changed.
        case storageFailed
        /// The sync service failed; local changes stay queued.
        case syncFailed
    }

    public var code: Code
    public var message: String
    public var key: String?
    public var underlyingError: (any Error)?

    public init(_ code: Code, _ message: String, key: String? = nil, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.key = key
        self.underlyingError = underlyingError
    }

    public var description: String {
        "\(code.rawValue): \(message)" + (key.map { " (key \"\($0.prefix(80))\")" } ?? "")
    }
}
