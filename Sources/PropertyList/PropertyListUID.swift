/// A keyed archive's object reference: an index into its `$objects` array.
///
/// Binary plists give it its own type (marker `0x8N`); XML and JSON spell it as a
/// one-key dictionary `{"CF$UID": N}`. Corresponds to `CFKeyedArchiverUID`.
public struct PropertyListUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var value: UInt64

    public init(_ value: UInt64) {
        self.value = value
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.value < rhs.value
    }

    public var description: String {
        "UID(\(value))"
    }

    /// The key XML and JSON use for a UID's one-key dictionary.
    public static let dictionaryKey = "CF$UID"
}
