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

extension HybridTimestamp {
    /// How far ahead of a reader's clock a timestamp from elsewhere may be: 5 minutes,
    /// Kerberos' default tolerance for clock skew between machines. CockroachDB's
    /// max-offset (500 ms) assumes servers kept in step by NTP; replicas here are
    /// laptops and phones, whose clocks stray further. A timestamp beyond it is
    /// refused rather than adopted: adopted, it would drag every clock that saw it
    /// into the future, for good.
    public static let maximumDrift: Duration = .seconds(300)
    /// The largest counter taken from elsewhere: far above what a replica reaches (one
    /// more per change within a millisecond), far below the overflow of the `+ 1` that
    /// follows it.
    static let maximumCounter: Int64 = 1 << 32
    /// The longest replica name taken from elsewhere, in bytes of UTF-8.
    static let maximumReplicaBytes = 255

    /// Why a clock reading `now` (milliseconds since 1970) must not take in this
    /// timestamp, read from another replica; nil when it may.
    func problem(readAt now: Int64) -> String? {
        let drift = Self.maximumDrift.wholeMilliseconds
        // A replica name read from a row may be of any length: the message quotes its start.
        let named = "timestamp \(milliseconds).\(counter)@\(replica.prefix(64))"
        if milliseconds < 0 { return "\(named) is before 1970" }
        let (limit, overflow) = now.addingReportingOverflow(drift)
        if !overflow && milliseconds > limit {
            return "\(named) is \(milliseconds - now) ms ahead of this clock, beyond the \(drift) ms allowed"
        }
        if !(0...Self.maximumCounter).contains(counter) {
            return "\(named) has a counter outside 0...\(Self.maximumCounter)"
        }
        if replica.isEmpty || replica.utf8.count > Self.maximumReplicaBytes {
            return "\(named) names a replica of \(replica.utf8.count) bytes, not 1 to \(Self.maximumReplicaBytes)"
        }
        return nil
    }
}

extension Duration {
    /// The duration in whole milliseconds, as timestamps count time.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
