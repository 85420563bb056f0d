/// Builds the value tree below one object of a binary plist.
///
/// Objects reached more than once (shared strings and keys, and any shared or cyclic
/// container) are decoded once and then shared; a census of references taken before
/// decoding finds them, so the common unshared object costs no bookkeeping. The limits
/// count values and bytes each time they are reached, not once per object, so a small
/// file whose references fan out into a huge tree is refused in time proportional to
/// the file, not to the tree.
struct BinaryTreeMaterializer {
    private struct Decoded {
        var value: PropertyListValue
        /// What the subtree adds to the running totals each time it is reached.
        var valueCount: Int
        var byteCount: Int
    }

    let reader: BinaryObjectReader
    let limits: PropertyListLimits
    /// For each object, its memo slot when it is reached more than once, else -1.
    private var slots: [Int32] = []
    private var memo: [Decoded?] = []
    private var inProgress: [Bool] = []
    private var valueCount = 0
    private var byteCount = 0

    init(reader: BinaryObjectReader, limits: PropertyListLimits, root: Int) {
        self.reader = reader
        self.limits = limits
        takeCensus(root: root)
    }

    /// Counts references to every object (saturating at two) and gives the shared ones
    /// a slot. Every object of a reachable cycle is shared: the one where a walk enters
    /// the cycle is referenced from outside it and from inside it.
    private mutating func takeCensus(root: Int) {
        let objectCount = reader.trailer.objectCount
        var counts = [UInt8](repeating: 0, count: objectCount)
        counts[root] = 1
        for object in 0..<objectCount {
            guard let offset = try? reader.offset(ofObject: object),
                let header = try? reader.header(at: offset, objectIndex: object),
                header.kind == .array || header.kind == .dictionary
            else { continue }
            let references = header.kind == .array ? header.count : header.count * 2
            for position in 0..<references {
                guard let child = try? reader.reference(at: header.payload, position: position, objectIndex: object) else { break }
                if counts[child] < 2 { counts[child] += 1 }
            }
        }
        slots = [Int32](repeating: -1, count: objectCount)
        var sharedCount: Int32 = 0
        for object in 0..<objectCount where counts[object] > 1 {
            slots[object] = sharedCount
            sharedCount += 1
        }
        memo = Array(repeating: nil, count: Int(sharedCount))
        inProgress = Array(repeating: false, count: Int(sharedCount))
    }

    mutating func value(ofObject index: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let slot = Int(slots[index])
        if slot >= 0 {
            if let known = memo[slot] {
                try account(values: known.valueCount, bytes: known.byteCount, objectIndex: index)
                return known.value
            }
            guard !inProgress[slot] else {
                throw PropertyListError(.cyclicReference, "object \(index) contains itself", objectIndex: index)
            }
        }
        guard depth < limits.maxDepth else {
            throw PropertyListError(.limitExceeded, "nesting deeper than \(limits.maxDepth)", objectIndex: index)
        }
        let valuesBefore = valueCount
        let bytesBefore = byteCount
        let offset = try reader.offset(ofObject: index)
        let header = try reader.header(at: offset, objectIndex: index)
        let value: PropertyListValue
        switch header.kind {
        case .array:
            if slot >= 0 { inProgress[slot] = true }
            try account(values: 1, bytes: 0, objectIndex: index)
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(header.count)
            for position in 0..<header.count {
                let child = try reader.reference(at: header.payload, position: position, objectIndex: index)
                elements.append(try self.value(ofObject: child, depth: depth + 1))
            }
            value = .array(elements)
        case .dictionary:
            if slot >= 0 { inProgress[slot] = true }
            try account(values: 1, bytes: 0, objectIndex: index)
            var entries: [PropertyListDictionary.Element] = []
            entries.reserveCapacity(header.count)
            for position in 0..<header.count {
                let keyObject = try reader.reference(at: header.payload, position: position, objectIndex: index)
                guard case .string(let key) = try self.value(ofObject: keyObject, depth: depth + 1) else {
                    throw PropertyListError(
                        .invalidObject, "dictionary key (object \(keyObject)) is not a string",
                        offset: header.offset, objectIndex: index)
                }
                let valueObject = try reader.reference(
                    at: header.payload, position: header.count + position, objectIndex: index)
                entries.append((key, try self.value(ofObject: valueObject, depth: depth + 1)))
            }
            value = .dictionary(PropertyListDictionary(readEntries: entries))
        default:
            let bytes = header.kind == .data || header.kind == .asciiString || header.kind == .utf16String ? header.count : 0
            try account(values: 1, bytes: bytes, objectIndex: index)
            value = try reader.scalar(header, objectIndex: index)
        }
        if slot >= 0 {
            inProgress[slot] = false
            memo[slot] = Decoded(value: value, valueCount: valueCount - valuesBefore, byteCount: byteCount - bytesBefore)
        }
        return value
    }

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
