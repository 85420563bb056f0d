/// When a change was made, by a hybrid logical clock, and by which replica: the order
/// in which every replica applies changes, whatever order they arrive in.
///
/// Ordered by physical time, then by the logical counter, then by replica: two
/// timestamps are equal only when they are the same change.
public struct HybridTimestamp: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970, as the clock that made it saw them (or later, when a
    /// change from elsewhere had moved the clock on).
    public var milliseconds: Int64
    /// Orders changes within one millisecond.
    public var counter: Int64
    /// The replica that made the change; the last tie-breaker.
    public var replica: String

    public init(milliseconds: Int64, counter: Int64, replica: String) {
        self.milliseconds = milliseconds
        self.counter = counter
        self.replica = replica
    }

    public static func < (left: HybridTimestamp, right: HybridTimestamp) -> Bool {
        (left.milliseconds, left.counter, left.replica) < (right.milliseconds, right.counter, right.replica)
    }

    public var description: String { "\(milliseconds).\(counter)@\(replica)" }
}
