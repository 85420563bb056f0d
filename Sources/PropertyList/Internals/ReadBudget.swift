/// What a text reader has produced so far, measured against ``PropertyListLimits``.
///
/// Text readers own their error positions, so the budget only says whether a limit
/// was passed and the reader throws `.limitExceeded` where it stands.
struct ReadBudget {
    let limits: PropertyListLimits
    private var objectCount = 0
    private var byteCount = 0

    init(_ limits: PropertyListLimits) {
        self.limits = limits
    }

    /// Counts one value (a string, a key, a number, a container…); `false` once more
    /// values than `maxObjectCount` have been produced.
    mutating func spendObject() -> Bool {
        objectCount &+= 1
        return objectCount <= limits.maxObjectCount
    }

    /// Counts the bytes of a string or data value; `false` once the total passes
    /// `maxByteCount`.
    mutating func spendBytes(_ count: Int) -> Bool {
        byteCount &+= count
        return byteCount <= limits.maxByteCount
    }

    /// Whether a container may open when `openCount` are already open.
    func allowsNesting(below openCount: Int) -> Bool {
        openCount < limits.maxDepth
    }
}
