public import PropertyList

/// One change of a key's winning value.
public struct DefaultsChange: Sendable, Equatable {
    public var key: String
    /// The value before, through the search list; nil when there was none.
    public var oldValue: PropertyListValue?
    /// The value after, through the search list; nil when there is none.
    public var newValue: PropertyListValue?
    /// True when another process made the change (seen in the shared file).
    public var isExternal: Bool

    public init(key: String, oldValue: PropertyListValue?, newValue: PropertyListValue?, isExternal: Bool) {
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
        self.isExternal = isExternal
    }
}
