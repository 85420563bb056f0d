public import PropertyList

/// Why a change to a ubiquitous store was refused or could not be kept.
public struct UbiquitousStoreError: KeepsakeError {
    /// What went wrong. New codes may be added; match the ones you handle.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The change would break Apple's limits (``UbiquitousStoreLimits``); nothing
        /// changed.
        public static let quotaViolation = Code("quotaViolation")
        /// The value is not a property list.
        public static let notAPropertyList = Code("notAPropertyList")
        /// The store's file could not be read or written; on a write, nothing changed.
        public static let storageFailed = Code("storageFailed")
        /// The sync service failed; local changes stay queued.
        public static let syncFailed = Code("syncFailed")

        /// Lets `catch .quotaViolation` match a thrown ``UbiquitousStoreError`` by its code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            code.matches(error, as: UbiquitousStoreError.self)
        }
    }

    public var code: Code
    public var message: String
    /// The key concerned, where there is one.
    public var key: String?
    public var underlyingError: (any Error)?

    public init(_ code: Code, _ message: String, key: String? = nil, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.key = key
        self.underlyingError = underlyingError
    }

    public var context: [String] { key.map { ["key \"\($0.prefix(80))\""] } ?? [] }
}
