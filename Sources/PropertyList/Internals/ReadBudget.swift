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

extension ReadBudget {
    /// Turns UTF-8 bytes a text parser has delimited into a string, counting its bytes.
    /// - Throws: `.invalidString` or `.limitExceeded`, positioned at `start` in `document`.
    mutating func string(
        _ utf8: UnsafeBufferPointer<UInt8>, isASCII: Bool = false, startingAt start: Int,
        in document: UnsafeBufferPointer<UInt8>
    ) throws(PropertyListError) -> String {
        guard let string = UTF8Validation.string(utf8, isASCII: isASCII) else {
            throw TextPosition.error(.invalidString, "string is not valid UTF-8", at: start, in: document)
        }
        guard spendBytes(utf8.count) else {
            throw TextPosition.error(
                .limitExceeded, "strings and data exceed \(limits.maxByteCount) bytes", at: start, in: document)
        }
        return string
    }
}
