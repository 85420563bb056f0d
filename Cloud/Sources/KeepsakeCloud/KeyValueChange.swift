public import PropertyList

/// One change to one key of a ubiquitous store: a new value, or its removal, stamped
/// with the time and replica that made it. Changes are what replicas exchange.
public struct KeyValueChange: Sendable, Hashable {
    public var key: String
    /// The new value; `nil` removes the key.
    public var value: PropertyListValue?
    public var timestamp: HybridTimestamp

    public init(key: String, value: PropertyListValue?, timestamp: HybridTimestamp) {
        self.key = key
        self.value = value
        self.timestamp = timestamp
    }
}

/// Apple's limits on `NSUbiquitousKeyValueStore`: 1,024 keys, 1 MB in all, 1 MB per
/// value, keys of at most 64 bytes of UTF-8.
public struct UbiquitousStoreLimits: Sendable, Hashable {
    public var maxKeys = 1_024
    public var maxTotalBytes = 1 << 20
    public var maxValueBytes = 1 << 20
    public var maxKeyBytes = 64

    public init() {}
}
