/// The last 32 bytes of a binary plist, checked against the file they describe.
struct BinaryPropertyListTrailer: Sendable {
    static let size = 32
    static let headerSize = 8

    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTableOffset: Int

    /// Checks magic, trailer fields and that every offset points into the object area.
    /// `load` is called with each range before it is read: the header, the trailer and
    /// the offset table.
    init(
        validating bytes: UnsafeRawBufferPointer,
        loading load: (Range<Int>) throws(PropertyListError) -> Void = { _ in }
    ) throws(PropertyListError) {
        try load(0..<min(bytes.count, Self.headerSize))
        guard bytes.count >= Self.headerSize, bytes.starts(with: "bplist".utf8) else {
            throw PropertyListError(.invalidHeader, "missing bplist magic", offset: 0)
        }
        guard bytes.starts(with: "bplist00".utf8) else {
            throw PropertyListError(.invalidHeader, "unsupported binary plist version", offset: 6)
        }
        guard bytes.count >= Self.headerSize + Self.size + 1 else {
            throw PropertyListError(
                .truncated, "\(bytes.count) bytes is too short for a binary plist", offset: bytes.count)
        }
        let start = bytes.count - Self.size
        try load(start..<bytes.count)
        offsetSize = Int(bytes[start + 6])
        referenceSize = Int(bytes[start + 7])
        let objectCount = bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self).bigEndian
        let topObject = bytes.loadUnaligned(fromByteOffset: start + 16, as: UInt64.self).bigEndian
        let tableOffset = bytes.loadUnaligned(fromByteOffset: start + 24, as: UInt64.self).bigEndian

        func fail(_ message: String) -> PropertyListError {
            PropertyListError(.invalidTrailer, message, offset: start)
        }
        guard (1...8).contains(offsetSize) else { throw fail("offset size \(offsetSize) is not 1–8") }
        guard (1...8).contains(referenceSize) else { throw fail("reference size \(referenceSize) is not 1–8") }
        guard objectCount >= 1, objectCount <= UInt64(start) else {
            throw fail("object count \(objectCount) is impossible")
        }
        guard topObject < objectCount else {
            throw fail("top object \(topObject) is not below the count \(objectCount)")
        }
        guard referenceSize >= 8 || objectCount <= 1 << (8 * UInt64(referenceSize)) else {
            throw fail("\(referenceSize)-byte references cannot address \(objectCount) objects")
        }
        guard tableOffset >= UInt64(Self.headerSize), tableOffset < UInt64(start),
            objectCount * UInt64(offsetSize) <= UInt64(start) - tableOffset
        else { throw fail("offset table at \(tableOffset) does not fit before the trailer") }
        self.objectCount = Int(objectCount)
        self.topObject = Int(topObject)
        self.offsetTableOffset = Int(tableOffset)
        try load(offsetTableOffset..<offsetTableOffset + self.objectCount * offsetSize)

        if let index = Self.firstOffsetOutsideObjects(
            bytes, table: offsetTableOffset, count: self.objectCount, size: offsetSize)
        {
            let offset = Self.readSized(bytes, at: offsetTableOffset + index * offsetSize, size: offsetSize)
            throw PropertyListError(
                .offsetOutOfRange, "object offset \(offset) lies outside the object area",
                offset: offsetTableOffset + index * offsetSize, objectIndex: index)
        }
    }

    /// The first entry of the offset table that does not point between the header and
    /// the table, or `nil`. The width is fixed per table, so each common width gets a
    /// loop of its own instead of choosing the width for every entry.
    private static func firstOffsetOutsideObjects(
        _ bytes: UnsafeRawBufferPointer, table: Int, count: Int, size: Int
    ) -> Int? {
        @inline(__always)
        func firstOutside(_ offset: (Int) -> UInt64) -> Int? {
            let (low, high) = (UInt64(headerSize), UInt64(table))
            // Unsigned wrap-around puts offsets below the header above the range too.
            for index in 0..<count where offset(index) &- low >= high &- low { return index }
            return nil
        }
        switch size {
        case 1: return firstOutside { UInt64(bytes[table + $0]) }
        case 2: return firstOutside { readSized(bytes, at: table + $0 * 2, size: 2) }
        case 3: return firstOutside { readSized(bytes, at: table + $0 * 3, size: 3) }
        case 4: return firstOutside { readSized(bytes, at: table + $0 * 4, size: 4) }
        default: return firstOutside { readSized(bytes, at: table + $0 * size, size: size) }
        }
    }

    /// A big-endian unsigned integer of 1–8 bytes; the caller has checked the bounds.
    @inline(__always)
    static func readSized(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(bytes[offset])
        case 2: return UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self).bigEndian)
        // Files between 64 KB and 16 MB, or with as many objects, use 3-byte offsets or
        // references, so this width is as common as the powers of two.
        case 3:
            return UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self).bigEndian) << 8
                | UInt64(bytes[offset + 2])
        case 4: return UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian)
        case 8: return bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).bigEndian
        default:
            var value: UInt64 = 0
            for position in offset..<offset + size { value = value << 8 | UInt64(bytes[position]) }
            return value
        }
    }
}
