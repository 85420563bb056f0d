/// Builds the value tree below one object of a binary plist.
///
/// Every object is decoded once and then shared (strings and keys that a writer
/// deduplicated stay one allocation). The limits count values and bytes each time they
/// are reached, not once per object, so a small file whose references fan out into a
/// huge tree is refused in time proportional to the file, not to the tree.
struct BinaryTreeMaterializer {
    private struct Decoded {
        var value: PropertyListValue
        /// What the subtree adds to the running totals each time it is reached.
        var valueCount: Int
        var byteCount: Int
    }

    let reader: BinaryObjectReader
    let limits: PropertyListLimits
    private var decoded: [Decoded?] = []
    private var inProgress: [Bool] = []
    private var valueCount = 0
    private var byteCount = 0

    init(reader: BinaryObjectReader, limits: PropertyListLimits) {
        self.reader = reader
        self.limits = limits
    }

    mutating func value(ofObject index: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        if decoded.isEmpty {
            decoded = Array(repeating: nil, count: reader.trailer.objectCount)
            inProgress = Array(repeating: false, count: reader.trailer.objectCount)
        }
        if let known = decoded[index] {
            try account(values: known.valueCount, bytes: known.byteCount, objectIndex: index)
            return known.value
        }
        guard !inProgress[index] else {
            throw PropertyListError(.cyclicReference, "object \(index) contains itself", objectIndex: index)
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
            inProgress[index] = true
            try account(values: 1, bytes: 0, objectIndex: index)
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(header.count)
            for position in 0..<header.count {
                let child = try reader.reference(at: header.payload, position: position, objectIndex: index)
                elements.append(try self.value(ofObject: child, depth: depth + 1))
            }
            inProgress[index] = false
            value = .array(elements)
        case .dictionary:
            inProgress[index] = true
            try account(values: 1, bytes: 0, objectIndex: index)
            var dictionary = PropertyListDictionary(minimumCapacity: header.count)
            for position in 0..<header.count {
                let keyObject = try reader.reference(at: header.payload, position: position, objectIndex: index)
                guard case .string(let key) = try self.value(ofObject: keyObject, depth: depth + 1) else {
                    throw PropertyListError(
                        .invalidObject, "dictionary key (object \(keyObject)) is not a string",
                        offset: header.offset, objectIndex: index)
                }
                let valueObject = try reader.reference(
                    at: header.payload, position: header.count + position, objectIndex: index)
                dictionary.updateValue(try self.value(ofObject: valueObject, depth: depth + 1), forKey: key)
            }
            inProgress[index] = false
            value = .dictionary(dictionary)
        default:
            let bytes = header.kind == .data || header.kind == .asciiString || header.kind == .utf16String ? header.count : 0
            try account(values: 1, bytes: bytes, objectIndex: index)
            value = try reader.scalar(header, objectIndex: index)
        }
        decoded[index] = Decoded(value: value, valueCount: valueCount - valuesBefore, byteCount: byteCount - bytesBefore)
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
