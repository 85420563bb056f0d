/// A `bplist00` document as the unarchiver reads it: object dictionaries in place, and
/// the few things it does on every field access — following a reference, reading a UID
/// or a number — without going through ``BinaryPropertyList``. Strings, data and nested
/// values are left to ``plist``, which has validated the trailer and the offset table.
///
/// The bytes are kept in a buffer of the class's own so that reads are plain loads;
/// every read checks its range against the object area first (`guard`s below), since
/// the buffer's subscript does not.
final class BinaryArchiveLayout {
    let plist: BinaryPropertyList
    private let raw: UnsafeMutableRawBufferPointer
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let tableOffset: Int

    /// Reads the trailer of bytes that ``BinaryPropertyList`` accepted.
    init?(plist: BinaryPropertyList, bytes: [UInt8]) {
        guard bytes.count >= 40 else { return nil }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
        raw.copyBytes(from: bytes)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            let count = Self.read(UnsafeRawBufferPointer(raw), at: trailer + 8, size: 8),
            let table = Self.read(UnsafeRawBufferPointer(raw), at: trailer + 24, size: 8),
            table < trailer, count <= (trailer - table) / offsetSize
        else {
            raw.deallocate()
            return nil
        }
        self.plist = plist
        self.raw = raw
        self.offsetSize = offsetSize
        self.referenceSize = referenceSize
        objectCount = count
        tableOffset = table
    }

    deinit {
        raw.deallocate()
    }

    /// A big-endian unsigned integer of `size` (1–8) bytes at `offset`, if it lies in
    /// the buffer and fits `Int`.
    @inline(__always)
    private static func read(_ raw: UnsafeRawBufferPointer, at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size <= raw.count, offset <= raw.count - size else { return nil }
        switch size {
        case 1: return Int(raw[offset])
        case 2: return Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return Int(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return Int(exactly: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        default:
            var value: UInt64 = 0
            for index in offset..<offset + size { value = value << 8 | UInt64(raw[index]) }
            return Int(exactly: value)
        }
    }

    @inline(__always)
    private func read(at offset: Int, size: Int) -> Int? {
        Self.read(UnsafeRawBufferPointer(raw), at: offset, size: size)
    }

    /// Where object `number` starts; always inside the object area.
    @inline(__always)
    private func offset(of number: Int) -> Int? {
        guard number >= 0, number < objectCount,
            let offset = read(at: tableOffset + number * offsetSize, size: offsetSize),
            offset >= 8, offset < tableOffset
        else { return nil }
        return offset
    }

    /// The dictionary at object `number`, or `nil` when the object is not a dictionary.
    /// Its references are checked when they are followed (``reference(_:_:)``).
    /// - Throws: ``KeyedArchiveError`` when the dictionary runs past the object area.
    func dictionary(_ number: Int) throws(KeyedArchiveError) -> InstanceFields? {
        guard let offset = offset(of: number), raw[offset] >> 4 == 0xD else { return nil }
        var count = Int(raw[offset] & 0x0F)
        var payload = offset + 1
        if count == 0x0F {
            guard payload < tableOffset, raw[payload] >> 4 == 0x1, raw[payload] & 0x0F <= 3 else {
                throw corrupt("a dictionary's length", number)
            }
            let size = 1 << Int(raw[payload] & 0x0F)
            guard size < tableOffset - payload, let extended = read(at: payload + 1, size: size) else {
                throw corrupt("a dictionary's length", number)
            }
            payload += 1 + size
            count = extended
        }
        guard payload <= tableOffset, count <= (tableOffset - payload) / (2 * referenceSize) else {
            throw corrupt("a dictionary runs past the object area", number)
        }
        return InstanceFields(payload: payload, count: count)
    }

    /// The object number stored at `position` of a container's references; `payload`
    /// and `position` come from ``dictionary(_:)``, which checked the container's extent.
    @inline(__always)
    func reference(_ payload: Int, _ position: Int) -> Int? {
        guard let number = read(at: payload + position * referenceSize, size: referenceSize), number < objectCount
        else { return nil }
        return number
    }

    /// Object `number` when it is a UID: the reference most fields hold, read without
    /// making a value.
    @inline(__always)
    func uid(_ number: Int) -> UInt64? {
        guard let offset = offset(of: number), raw[offset] >> 4 == 0x8 else { return nil }
        let size = Int(raw[offset] & 0x0F) + 1
        guard size <= 8, size < tableOffset - offset, let value = read(at: offset + 1, size: size) else { return nil }
        return UInt64(value)
    }

    /// Object `number` when it is a UID, an integer that fits `Int64`, a 64-bit real, a
    /// boolean or an ASCII string; `nil` for anything else, which the caller reads
    /// through ``plist`` (which also reports what is wrong with a malformed object).
    func simpleScalar(_ number: Int) -> PropertyListValue? {
        guard let offset = offset(of: number) else { return nil }
        let marker = raw[offset]
        let low = Int(marker & 0x0F)
        let room = tableOffset - offset - 1
        switch marker >> 4 {
        case 0x0 where marker == 0x08 || marker == 0x09:
            return .bool(marker == 0x09)
        case 0x8 where low < 8:
            guard low + 1 <= room, let value = read(at: offset + 1, size: low + 1) else { return nil }
            return .uid(PropertyListUID(UInt64(value)))
        case 0x1 where low <= 3:
            let size = 1 << low
            guard size <= room else { return nil }
            let bits = UInt64(bigEndian: size == 8 ? raw.loadUnaligned(fromByteOffset: offset + 1, as: UInt64.self) : 0)
            return size == 8 ? .integer(Int64(bitPattern: bits)) : read(at: offset + 1, size: size).map { .integer(Int64($0)) }
        case 0x2 where low == 3:
            guard room >= 8 else { return nil }
            return .real(Double(bitPattern: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 1, as: UInt64.self))))
        case 0x5:
            var start = offset + 1
            var length = low
            if low == 0x0F {
                // The length follows as an integer object of 1, 2, 4 or 8 bytes.
                guard room >= 1, raw[start] >> 4 == 0x1, raw[start] & 0x0F <= 3 else { return nil }
                let size = 1 << Int(raw[start] & 0x0F)
                guard size < room, let extended = read(at: start + 1, size: size) else { return nil }
                start += 1 + size
                length = extended
            }
            guard length <= tableOffset - start else { return nil }
            let text = UnsafeRawBufferPointer(rebasing: raw[start..<start + length])
            guard text.allSatisfy({ $0 < 0x80 }) else { return nil }
            return .string(String(decoding: text, as: UTF8.self))
        default:
            return nil
        }
    }

    private func corrupt(_ message: String, _ number: Int) -> KeyedArchiveError {
        KeyedArchiveError(
            .invalidPropertyList, message,
            underlyingError: PropertyListError(.invalidObject, message, objectIndex: number))
    }
}
