import PropertyList

/// Builds a document's whole tree through the lazy navigation calls alone (kinds,
/// elements, entries, one scalar at a time), never through the full reader, so the two
/// paths can be compared. It counts values as the full reader does (each container,
/// key and value every time it is reached) and stops at the same depth, so the two
/// refuse the same fan-out and nesting.
struct LazyWalk {
    let plist: BinaryPropertyList
    let limits: PropertyListLimits
    private var valueCount = 0

    init(_ plist: BinaryPropertyList, limits: PropertyListLimits) {
        self.plist = plist
        self.limits = limits
    }

    mutating func value(ofObject index: Int, depth: Int = 0) throws -> PropertyListValue {
        try count(1)
        if let elements = try plist.elements(ofArray: index) {
            guard depth < limits.maxDepth else { throw PropertyListError(.limitExceeded, "too deep") }
            var values: [PropertyListValue] = []
            for element in elements { values.append(try value(ofObject: element, depth: depth + 1)) }
            return .array(values)
        }
        if let entries = try plist.entries(ofDictionary: index) {
            guard depth < limits.maxDepth else { throw PropertyListError(.limitExceeded, "too deep") }
            var keys: [String] = []
            for key in entries.keys {
                guard try plist.kind(ofObject: key) == .string, case .string(let text) = try plist.value(at: key)
                else { throw PropertyListError(.invalidObject, "key is not a string") }
                try count(1)
                keys.append(text)
            }
            var pairs: [(String, PropertyListValue)] = []
            for (key, valueIndex) in zip(keys, entries.values) {
                pairs.append((key, try value(ofObject: valueIndex, depth: depth + 1)))
            }
            return .dictionary(PropertyListDictionary(pairs))
        }
        return try plist.value(at: index)
    }

    private mutating func count(_ values: Int) throws {
        valueCount += values
        guard valueCount <= limits.maxObjectCount else { throw PropertyListError(.limitExceeded, "too many values") }
    }
}
