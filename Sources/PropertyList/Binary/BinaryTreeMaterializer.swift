/// Builds the value tree below one object of a binary plist.
///
/// A container, string or data reached a second time is decoded again once and then
/// kept, so every later reach shares it and none is decoded more than twice; numbers,
/// dates and booleans are simply decoded again. The limits count values and bytes each time they are
/// reached, so a small file whose references fan out into a huge tree is refused in
/// time proportional to the file, not to the tree. A container reached while it is
/// still being decoded is a cycle.
struct BinaryTreeMaterializer {
    private static let unreached: Int32 = 0
    private static let inProgress: Int32 = -1
    private static let reachedOnce: Int32 = -2

    let reader: BinaryObjectReader
    let limits: PropertyListLimits
    /// Per object: one of the marks above, or its memo slot plus one.
    private var marks: [Int32]
    // Per memo slot: the value (or, for keys, the bare string) and what its subtree
    // adds to the running totals each time it is reached.
    private var memoValues: [PropertyListValue?] = []
    private var memoKeys: [String?] = []
    private var memoValueCounts: [Int] = []
    private var memoByteCounts: [Int] = []
    private var valueCount = 0
    private var byteCount = 0
    /// The key objects of the last small dictionary found to have distinct keys. Records
    /// of one kind share their key objects, so later ones skip the distinctness check.
    private var lastDistinctKeyObjects: [Int] = []

    init(reader: BinaryObjectReader, limits: PropertyListLimits) {
        self.reader = reader
        self.limits = limits
        marks = [Int32](repeating: Self.unreached, count: reader.trailer.objectCount)
    }

    mutating func value(ofObject index: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let mark = marks[index]
        if mark > 0, let known = memoValues[Int(mark) - 1] {
            try account(values: memoValueCounts[Int(mark) - 1], bytes: memoByteCounts[Int(mark) - 1], objectIndex: index)
            return known
        }
        let header = try reader.header(at: try reader.offset(ofObject: index), objectIndex: index)
        guard Self.isWorthSharing(header) else {
            try account(values: 1, bytes: 0, objectIndex: index)
            return try reader.scalar(header, objectIndex: index)
        }
        guard mark != Self.inProgress else {
            throw PropertyListError(.cyclicReference, "object \(index) contains itself", objectIndex: index)
        }
        guard depth < limits.maxDepth else {
            throw PropertyListError(.limitExceeded, "nesting deeper than \(limits.maxDepth)", objectIndex: index)
        }
        let valuesBefore = valueCount
        let bytesBefore = byteCount
        let value: PropertyListValue
        switch header.kind {
        case .array:
            marks[index] = Self.inProgress
            try account(values: 1, bytes: 0, objectIndex: index)
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(header.count)
            for position in 0..<header.count {
                let child = try reader.reference(at: header.payload, position: position, objectIndex: index)
                elements.append(try self.value(ofObject: child, depth: depth + 1))
            }
            value = .array(elements)
        case .dictionary:
            marks[index] = Self.inProgress
            try account(values: 1, bytes: 0, objectIndex: index)
            var entries: [PropertyListDictionary.Element] = []
            entries.reserveCapacity(header.count)
            // Keys first, so they are compared with the last distinct key objects before
            // any nested dictionary can replace those.
            var keysKnownDistinct = header.count > 0 && header.count == lastDistinctKeyObjects.count
            for position in 0..<header.count {
                let keyObject = try reader.reference(at: header.payload, position: position, objectIndex: index)
                if keysKnownDistinct, keyObject != lastDistinctKeyObjects[position] { keysKnownDistinct = false }
                entries.append((try self.key(ofObject: keyObject, dictionary: index), .bool(false)))
            }
            for position in 0..<header.count {
                let valueObject = try reader.reference(
                    at: header.payload, position: header.count + position, objectIndex: index)
                entries[position].value = try self.value(ofObject: valueObject, depth: depth + 1)
            }
            if keysKnownDistinct {
                value = .dictionary(PropertyListDictionary(distinctEntries: entries))
            } else {
                let dictionary = PropertyListDictionary(readEntries: entries)
                if dictionary.count == entries.count {
                    try rememberDistinctKeyObjects(header, objectIndex: index)
                }
                value = .dictionary(dictionary)
            }
        default:
            let bytes = header.kind == .data || header.kind == .asciiString || header.kind == .utf16String ? header.count : 0
            try account(values: 1, bytes: bytes, objectIndex: index)
            value = try reader.scalar(header, objectIndex: index)
        }
        let slot = remember(index, previousMark: mark)
        if let slot {
            memoValues[slot] = value
            memoValueCounts[slot] = valueCount - valuesBefore
            memoByteCounts[slot] = byteCount - bytesBefore
        }
        return value
    }

    /// A dictionary key: a string object, read without wrapping it in a value.
    private mutating func key(ofObject index: Int, dictionary: Int) throws(PropertyListError) -> String {
        let mark = marks[index]
        if mark > 0, let known = memoKeys[Int(mark) - 1] {
            try account(values: 1, bytes: known.utf8.count, objectIndex: index)
            return known
        }
        let header = try reader.header(at: try reader.offset(ofObject: index), objectIndex: index)
        guard header.kind == .asciiString || header.kind == .utf16String else {
            throw PropertyListError(
                .invalidObject, "dictionary key (object \(index)) is not a string", objectIndex: dictionary)
        }
        let key = try reader.string(header, objectIndex: index)
        try account(values: 1, bytes: key.utf8.count, objectIndex: index)
        if let slot = remember(index, previousMark: mark) { memoKeys[slot] = key }
        return key
    }

    private mutating func rememberDistinctKeyObjects(
        _ header: BinaryObjectReader.Header, objectIndex: Int
    ) throws(PropertyListError) {
        guard header.count <= PropertyListDictionary.linearSearchLimit else { return }
        lastDistinctKeyObjects.removeAll(keepingCapacity: true)
        for position in 0..<header.count {
            lastDistinctKeyObjects.append(try reader.reference(at: header.payload, position: position, objectIndex: objectIndex))
        }
    }

    /// Containers must be tracked (cycles, fan-out), and strings and data are cheaper
    /// to share than to decode again; numbers, dates and booleans are not.
    private static func isWorthSharing(_ header: BinaryObjectReader.Header) -> Bool {
        switch header.kind {
        case .array, .dictionary, .asciiString, .utf16String, .data: true
        default: false
        }
    }

    /// Marks `index` as reached; from the second reach on, returns its memo slot.
    private mutating func remember(_ index: Int, previousMark: Int32) -> Int? {
        if previousMark > 0 { return Int(previousMark) - 1 }
        guard previousMark == Self.reachedOnce else {
            marks[index] = Self.reachedOnce
            return nil
        }
        memoValues.append(nil)
        memoKeys.append(nil)
        memoValueCounts.append(0)
        memoByteCounts.append(0)
        marks[index] = Int32(memoValues.count)
        return memoValues.count - 1
    }

    @inline(__always)
    private mutating func account(values: Int, bytes: Int, objectIndex: Int) throws(PropertyListError) {
        valueCount += values
        byteCount += bytes
        guard valueCount <= limits.maxObjectCount else {
            throw PropertyListError(.limitExceeded, "more than \(limits.maxObjectCount) values", objectIndex: objectIndex)
        }
        guard byteCount <= limits.maxByteCount else {
            throw PropertyListError(.limitExceeded, "more than \(limits.maxByteCount) bytes of strings and data", objectIndex: objectIndex)
        }
    }
}
