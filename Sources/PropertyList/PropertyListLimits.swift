/// Bounds that make hostile input cheap to reject.
///
/// The defaults read any real-world plist (nibs, preference files, archives of 100k
/// records) while keeping a malicious one from exhausting the stack or memory. Shared
/// references in a binary plist are counted every time they are reached, so a small
/// file whose references fan out exponentially fails fast instead of expanding.
public struct PropertyListLimits: Sendable, Hashable {
    /// How deeply containers may nest: a container inside `maxDepth` others is refused,
    /// by the readers and by ``PropertyListWriter`` alike.
    ///
    /// Readers keep open containers on the heap, so any value works; writers recurse
    /// once per level, as do `PropertyListValue`'s `==`, hashing and destruction, so a
    /// limit in the tens of thousands gives up the protection against stack overflow.
    public var maxDepth: Int
    /// How many values the whole tree may hold, counting each reference.
    public var maxObjectCount: Int
    /// How many bytes of strings and data the tree may hold, counting each reference.
    public var maxByteCount: Int

    public init(maxDepth: Int = 256, maxObjectCount: Int = 16_000_000, maxByteCount: Int = 1 << 30) {
        self.maxDepth = maxDepth
        self.maxObjectCount = maxObjectCount
        self.maxByteCount = maxByteCount
    }

    public static let `default` = PropertyListLimits()
}
