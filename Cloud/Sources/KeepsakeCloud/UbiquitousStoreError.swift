public import PropertyList

/// Why a change to a ubiquitous store was refused or could not be kept.
public struct UbiquitousStoreError: KeepsakeError {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<UbiquitousStoreError>

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

extension ErrorCode<UbiquitousStoreError> {
    /// Lets `catch .quotaViolation` match a thrown ``UbiquitousStoreError`` by its code.
    public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// The change would break Apple's limits (``UbiquitousStoreLimits``); nothing
    /// changed.
    public static let quotaViolation = Self("quotaViolation")
    /// The value is not a property list.
    public static let notAPropertyList = Self("notAPropertyList")
    /// The store's file could not be read or written; on a write, nothing changed.
    public static let storageFailed = Self("storageFailed")
    /// The sync service failed; local changes stay queued.
    public static let syncFailed = Self("syncFailed")
}
