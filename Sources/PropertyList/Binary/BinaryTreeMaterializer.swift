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
    /// The keys of the last small dictionary found to have distinct keys. Records of one
    /// kind share their key objects, so later ones neither decode nor check their keys.
    private var lastDistinctKeys = KeyShape()
    /// Shared storage for the entries of dictionaries without containers among their
    /// values: a few large blocks rather than one allocation per record.
    private var arena = EntryArena()

    init(reader: BinaryObjectReader, limits: PropertyListLimits) {
        self.reader = reader
        self.limits = limits
        marks = [Int32](repeating: Self.unreached, count: reader.trailer.objectCount)
    }

    mutating func value(ofObject index: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let mark = marks[index]
        if mark > 0, let known = memoValues[Int(mark) - 1] {
            try account(
                values: memoValueCounts[Int(mark) - 1], bytes: memoByteCounts[Int(mark) - 1], objectIndex: index)
            return known
        }
        let offset = try reader.offset(ofObject: index)
        // Numbers, dates and ASCII strings, most of a typical file, skip the general header.
        if let number = reader.fixedWidthScalar(at: offset) {
            try account(values: 1, bytes: 0, objectIndex: index)
            return number
        }
        if let text = reader.asciiStringPayload(at: offset) {
            try account(values: 1, bytes: text.count, objectIndex: index)
            let value = PropertyListValue.string(try reader.asciiString(text, at: offset, objectIndex: index))
            if let slot = remember(index, previousMark: mark) {
                (memoValues[slot], memoValueCounts[slot], memoByteCounts[slot]) = (value, 1, text.count)
            }
            return value
        }
        let header = try reader.header(at: offset, objectIndex: index)
        guard Self.isWorthSharing(header) else {
            try account(values: 1, bytes: 0, objectIndex: index)
            return try reader.scalar(header, objectIndex: index)
        }
        let valuesBefore = valueCount
        let bytesBefore = byteCount
        let value: PropertyListValue
        switch header.kind {
        case .array, .dictionary:
            guard mark != Self.inProgress else {
                throw PropertyListError(.cyclicReference, "object \(index) contains itself", objectIndex: index)
            }
            guard depth < limits.maxDepth else {
                throw PropertyListError(.limitExceeded, "nesting deeper than \(limits.maxDepth)", objectIndex: index)
            }
            value =
                header.kind == .array
                ? try array(header, objectIndex: index, depth: depth)
                : try dictionary(header, objectIndex: index, depth: depth)
        default:
            try account(values: 1, bytes: header.count, objectIndex: index)
            value = try reader.scalar(header, objectIndex: index)
        }
        if let slot = remember(index, previousMark: mark) {
            (memoValues[slot], memoValueCounts[slot], memoByteCounts[slot]) = (
                value, valueCount - valuesBefore, byteCount - bytesBefore
            )
        }
        return value
    }

    // Containers are decoded out of line, so that `value(ofObject:depth:)` stays small
    // for the scalars that make up most of a file.

    @inline(never)
    private mutating func array(
        _ header: BinaryObjectReader.Header, objectIndex index: Int, depth: Int
    ) throws(PropertyListError) -> PropertyListValue {
        try enterContainer(index)
        var elements: [PropertyListValue] = []
        elements.reserveCapacity(header.count)
        for position in 0..<header.count {
            let child = try reader.reference(at: header.payload, position: position, objectIndex: index)
            elements.append(try value(ofObject: child, depth: depth + 1))
        }
        return .array(elements)
    }

    @inline(never)
    private mutating func dictionary(
        _ header: BinaryObjectReader.Header, objectIndex index: Int, depth: Int
    ) throws(PropertyListError) -> PropertyListValue {
        try enterContainer(index)
        guard header.count <= DictionaryEntries.maximumCount else {
            throw PropertyListError(.limitExceeded, "dictionary of \(header.count) entries", objectIndex: index)
        }
        var range = arena.begin(capacity: header.count)
        // Keys first, so they are compared with the last distinct keys before any
        // nested dictionary can replace those.
        var keysKnownDistinct = lastDistinctKeys.match(header, reader: reader)
        if keysKnownDistinct {
            try account(values: header.count, bytes: lastDistinctKeys.byteCount, objectIndex: index)
            for key in lastDistinctKeys.keys { arena.appendKey(key, to: &range) }
        } else if lastDistinctKeys.matchContents(header, reader: reader) {
            keysKnownDistinct = true
            try account(values: header.count, bytes: lastDistinctKeys.byteCount, objectIndex: index)
            for which in lastDistinctKeys.matched { arena.appendKey(lastDistinctKeys.keys[which], to: &range) }
        } else {
            for position in 0..<header.count {
                let keyObject = try reader.reference(at: header.payload, position: position, objectIndex: index)
                arena.appendKey(try key(ofObject: keyObject, dictionary: index), to: &range)
            }
        }
        do {
            for position in 0..<header.count {
                let valueObject = try reader.reference(
                    at: header.payload, position: header.count + position, objectIndex: index)
                arena.setNextValue(try value(ofObject: valueObject, depth: depth + 1), in: &range)
            }
        } catch {
            arena.abandon(range)
            throw error
        }
        let entries = arena.finish(range)
        if keysKnownDistinct { return .dictionary(PropertyListDictionary(distinctEntries: entries)) }
        let dictionary = PropertyListDictionary(readEntries: entries)
        if dictionary.count == entries.count, dictionary.count <= PropertyListDictionary.linearSearchLimit {
            lastDistinctKeys.remember(header, entries: entries, reader: reader)
        }
        return .dictionary(dictionary)
    }

    /// Marks a container as being decoded, so that reaching it again is a cycle, and
    /// counts it.
    @inline(__always)
    private mutating func enterContainer(_ index: Int) throws(PropertyListError) {
        marks[index] = Self.inProgress
        try account(values: 1, bytes: 0, objectIndex: index)
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
            throw PropertyListError(
                .limitExceeded, "more than \(limits.maxObjectCount) values", objectIndex: objectIndex)
        }
        guard byteCount <= limits.maxByteCount else {
            throw PropertyListError(
                .limitExceeded, "more than \(limits.maxByteCount) bytes of strings and data", objectIndex: objectIndex)
        }
    }
}

/// The key objects of one dictionary, with the strings they decoded to.
private struct KeyShape {
    /// The key references as stored. They were checked when remembered, so a dictionary
    /// whose key references have the same bytes has the same, valid, keys.
    private var referenceBytes: [UInt8] = []
    private(set) var keys: [String] = []
    /// The keys' UTF-8 bytes one after another, each ending at its `keyEnds` entry; kept
    /// only while every key is ASCII, the only keys ``matchContents(_:reader:)`` matches.
    private var keyBytes: [UInt8] = []
    private var keyEnds: [Int] = []
    /// After ``matchContents(_:reader:)`` found a match: the index in ``keys`` of the key
    /// at each position.
    private(set) var matched: [Int] = []
    /// What the keys add to the byte count each time they are read.
    private(set) var byteCount = 0

    /// Whether `header`'s dictionary has exactly these key objects, in this order.
    func match(_ header: BinaryObjectReader.Header, reader: BinaryObjectReader) -> Bool {
        guard header.count > 0, header.count == keys.count else { return false }
        // The header checked that the references lie inside the object area.
        let stored = UnsafeRawBufferPointer(
            start: reader.bytes.baseAddress! + header.payload, count: header.count * reader.trailer.referenceSize)
        return referenceBytes.withUnsafeBytes { stored.hasSameBytes(as: $0) }
    }

    /// Whether `header`'s dictionary has other key objects holding these keys, in any
    /// order: each an ASCII string with the bytes of a different one of them. Writers
    /// that do not share equal strings (Foundation's, for one) give every record keys of
    /// its own, often each in another order; comparing their bytes spares building, and
    /// checking for duplicates, the same strings again. ``matched`` then says which key
    /// each position holds.
    mutating func matchContents(_ header: BinaryObjectReader.Header, reader: BinaryObjectReader) -> Bool {
        guard header.count > 0, header.count == keyEnds.count else { return false }
        var order: [Int] = []
        swap(&order, &matched)
        order.removeAll(keepingCapacity: true)
        defer { swap(&order, &matched) }
        var used: UInt64 = 0
        return keyBytes.withUnsafeBytes { known in
            for position in 0..<header.count {
                guard let offset = reader.checkedOffset(referencedAt: header.payload, position: position),
                    let text = reader.asciiStringPayload(at: offset),
                    let which = firstKey(
                        holding: UnsafeRawBufferPointer(rebasing: reader.bytes[text]), in: known, from: position,
                        except: used)
                else { return false }
                used |= 1 << which
                order.append(which)
            }
            return true
        }
    }

    /// Which key not in `used` has the bytes `text`, trying `first` before the others:
    /// most writers keep one order.
    private func firstKey(
        holding text: UnsafeRawBufferPointer, in known: UnsafeRawBufferPointer, from first: Int, except used: UInt64
    ) -> Int? {
        var which = first
        for _ in 0..<keyEnds.count {
            let start = which == 0 ? 0 : keyEnds[which - 1]
            if used & 1 << which == 0, keyEnds[which] - start == text.count,
                text.hasSameBytes(as: UnsafeRawBufferPointer(rebasing: known[start..<keyEnds[which]]))
            {
                return which
            }
            which = which + 1 == keyEnds.count ? 0 : which + 1
        }
        return nil
    }

    /// Remembers the keys of `header`'s dictionary, read as `entries`.
    mutating func remember(_ header: BinaryObjectReader.Header, entries: DictionaryEntries, reader: BinaryObjectReader)
    {
        let stored = header.payload..<header.payload + header.count * reader.trailer.referenceSize
        referenceBytes.replaceSubrange(referenceBytes.indices, with: reader.bytes[stored])
        keys.removeAll(keepingCapacity: true)
        keyBytes.removeAll(keepingCapacity: true)
        keyEnds.removeAll(keepingCapacity: true)
        byteCount = 0
        var allASCII = true
        for entry in entries {
            keys.append(entry.key)
            byteCount += entry.key.utf8.count
            allASCII = allASCII && entry.key.utf8.allSatisfy { $0 < 0x80 }
            keyBytes.append(contentsOf: entry.key.utf8)
            keyEnds.append(keyBytes.count)
        }
        // A key with other characters is stored as UTF-16, never as these bytes.
        if !allASCII { keyEnds.removeAll(keepingCapacity: true) }
    }
}
