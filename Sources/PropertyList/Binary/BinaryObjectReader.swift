#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes single objects of a validated binary plist. Every length and reference is
/// checked against the object area before it is used.
struct BinaryObjectReader {
    enum Kind {
        case boolean, integer, real, date, data, asciiString, utf16String, uid, array, dictionary
    }

    /// An object's marker decoded: its kind, element count and where its payload starts.
    struct Header {
        var kind: Kind
        var marker: UInt8
        var count: Int
        var payload: Int
        var offset: Int
    }

    let bytes: UnsafeRawBufferPointer
    let trailer: BinaryPropertyListTrailer

    /// Objects must lie between the header and the offset table.
    private var areaEnd: Int { trailer.offsetTableOffset }

    @inline(__always)
    func offset(ofObject index: Int) throws(PropertyListError) -> Int {
        guard let offset = checkedOffset(ofObject: index) else {
            throw PropertyListError(
                .referenceOutOfRange, "no object \(index); the plist has \(trailer.objectCount)", objectIndex: index)
        }
        return offset
    }

    /// Where object `index` starts, or `nil` when there is no such object. The offset
    /// table was checked when the document was opened, and nothing writes the bytes
    /// since, so the offset needs no check of its own.
    @inline(__always)
    func checkedOffset(ofObject index: Int) -> Int? {
        guard index >= 0, index < trailer.objectCount else { return nil }
        let size = trailer.offsetSize
        return Int(BinaryPropertyListTrailer.readSized(bytes, at: trailer.offsetTableOffset + index * size, size: size))
    }

    /// Where the object referenced at `position` among the references that start at
    /// `payload` starts; `nil` when the reference names no object.
    @inline(__always)
    func checkedOffset(referencedAt payload: Int, position: Int) -> Int? {
        guard let index = reference(at: payload, position: position) else { return nil }
        return checkedOffset(ofObject: index)
    }

    /// The object number stored at `position` among the references that start at
    /// `payload`, whose extent the caller checked; `nil` when it names no object.
    @inline(__always)
    func reference(at payload: Int, position: Int) -> Int? {
        let size = trailer.referenceSize
        let number = BinaryPropertyListTrailer.readSized(bytes, at: payload + position * size, size: size)
        return number < UInt64(trailer.objectCount) ? Int(number) : nil
    }

    func header(at offset: Int, objectIndex: Int) throws(PropertyListError) -> Header {
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        func fail(_ message: String) -> PropertyListError {
            PropertyListError(.invalidObject, message, offset: offset, objectIndex: objectIndex)
        }
        let kind: Kind
        var count = 0
        var payload = offset + 1
        var elementSize = 1
        switch marker >> 4 {
        case 0x0:
            guard marker == 0x08 || marker == 0x09 else {
                throw fail("marker 0x\(String(marker, radix: 16)) (null or fill) is not a property-list value")
            }
            return Header(kind: .boolean, marker: marker, count: 0, payload: payload, offset: offset)
        case 0x1:
            guard low <= 4 else { throw fail("integer of 2^\(low) bytes") }
            kind = .integer
            count = 1 << low
        case 0x2:
            guard low == 2 || low == 3 else { throw fail("real of 2^\(low) bytes") }
            kind = .real
            count = 1 << low
        case 0x3:
            guard marker == 0x33 else { throw fail("date marker 0x\(String(marker, radix: 16))") }
            kind = .date
            count = 8
        case 0x4: kind = .data
        case 0x5: kind = .asciiString
        case 0x6:
            kind = .utf16String
            elementSize = 2
        case 0x8:
            // Apple's readers take UIDs of at most 8 bytes; a wider one would be truncated.
            guard low < 8 else { throw fail("UID of \(low + 1) bytes; at most 8") }
            kind = .uid
            count = low + 1
        case 0xA:
            kind = .array
            elementSize = trailer.referenceSize
        case 0xD:
            kind = .dictionary
            elementSize = trailer.referenceSize * 2
        case 0xB, 0xC: throw fail("sets are not property-list values")
        default: throw fail("unknown marker 0x\(String(marker, radix: 16))")
        }
        switch kind {
        case .data, .asciiString, .utf16String, .array, .dictionary:
            if low == 0x0F {
                (count, payload) = try extendedCount(at: payload, objectIndex: objectIndex)
            } else {
                count = low
            }
        default:
            elementSize = 1
        }
        let (length, overflow) = count.multipliedReportingOverflow(by: elementSize)
        guard !overflow, payload <= areaEnd, length <= areaEnd - payload else {
            throw PropertyListError(
                .truncated, "\(kind) of \(count) elements runs past the object area",
                offset: offset, objectIndex: objectIndex)
        }
        return Header(kind: kind, marker: marker, count: count, payload: payload, offset: offset)
    }

    /// How many bytes the payload of `header` takes, which ``header(at:objectIndex:)``
    /// checked against the object area.
    func payloadLength(of header: Header) -> Int {
        switch header.kind {
        case .utf16String: header.count * 2
        case .array: header.count * trailer.referenceSize
        case .dictionary: header.count * trailer.referenceSize * 2
        default: header.count
        }
    }

    /// A count of 15 or more follows the marker as an integer object. Inlined: every
    /// string of 15 bytes or more, UUIDs among them, reads one.
    @inline(__always)
    private func extendedCount(at offset: Int, objectIndex: Int) throws(PropertyListError) -> (count: Int, payload: Int)
    {
        guard offset < areaEnd else {
            throw PropertyListError(.truncated, "length missing after marker", offset: offset, objectIndex: objectIndex)
        }
        let marker = bytes[offset]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw PropertyListError(
                .invalidObject, "length marker 0x\(String(marker, radix: 16)) is not an integer",
                offset: offset, objectIndex: objectIndex)
        }
        let size = 1 << Int(marker & 0x0F)
        guard size <= areaEnd - offset - 1 else {
            throw PropertyListError(
                .truncated, "length runs past the object area", offset: offset, objectIndex: objectIndex)
        }
        let count = BinaryPropertyListTrailer.readSized(bytes, at: offset + 1, size: size)
        guard count <= UInt64(Int.max) else {
            throw PropertyListError(
                .invalidObject, "length \(count) is impossible", offset: offset, objectIndex: objectIndex)
        }
        return (Int(count), offset + 1 + size)
    }

    /// Object numbers stored in a container; each is checked against the object count.
    func references(at payload: Int, count: Int, objectIndex: Int) throws(PropertyListError) -> [Int] {
        var result = [Int](repeating: 0, count: count)
        for position in 0..<count {
            result[position] = try reference(at: payload, position: position, objectIndex: objectIndex)
        }
        return result
    }

    @inline(__always)
    func reference(at payload: Int, position: Int, objectIndex: Int) throws(PropertyListError) -> Int {
        let size = trailer.referenceSize
        let reference = BinaryPropertyListTrailer.readSized(bytes, at: payload + position * size, size: size)
        guard reference < UInt64(trailer.objectCount) else {
            throw PropertyListError(
                .referenceOutOfRange, "reference to object \(reference); the plist has \(trailer.objectCount)",
                offset: payload + position * size, objectIndex: objectIndex)
        }
        return Int(reference)
    }

    /// The value of a boolean, a 1, 2, 4 or 8-byte integer, a real or a date at `offset`,
    /// decoded from its marker alone, which spares the materializer a ``Header``; `nil`
    /// for any other marker, or when the payload would run past the object area, which
    /// ``header(at:objectIndex:)`` then reports.
    @inline(__always)
    func fixedWidthScalar(at offset: Int) -> PropertyListValue? {
        let marker = bytes[offset]
        let payload = offset + 1
        switch marker {
        case 0x08: return .bool(false)
        case 0x09: return .bool(true)
        case 0x10 where payload < areaEnd:
            return .integer(Int64(bytes[payload]))
        case 0x11 where payload + 2 <= areaEnd:
            return .integer(Int64(bytes.loadUnaligned(fromByteOffset: payload, as: UInt16.self).bigEndian))
        case 0x12 where payload + 4 <= areaEnd:
            return .integer(Int64(bytes.loadUnaligned(fromByteOffset: payload, as: UInt32.self).bigEndian))
        case 0x13 where payload + 8 <= areaEnd:
            return .integer(Int64(bitPattern: bytes.loadUnaligned(fromByteOffset: payload, as: UInt64.self).bigEndian))
        case 0x22 where payload + 4 <= areaEnd:
            return .float(Float(bitPattern: bytes.loadUnaligned(fromByteOffset: payload, as: UInt32.self).bigEndian))
        case 0x23 where payload + 8 <= areaEnd:
            return .real(Double(bitPattern: bytes.loadUnaligned(fromByteOffset: payload, as: UInt64.self).bigEndian))
        case 0x33 where payload + 8 <= areaEnd:
            let seconds = Double(bitPattern: bytes.loadUnaligned(fromByteOffset: payload, as: UInt64.self).bigEndian)
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        default: return nil
        }
    }

    /// The value of a UID of 1–8 bytes at `offset`; `nil` for any other marker, a wider
    /// UID, or one that runs past the object area, which ``header(at:objectIndex:)`` reports.
    @inline(__always)
    func uid(at offset: Int) -> UInt64? {
        let marker = bytes[offset]
        let size = Int(marker & 0x0F) + 1
        guard marker >> 4 == 0x8, size <= 8, size <= areaEnd - offset - 1 else { return nil }
        return BinaryPropertyListTrailer.readSized(bytes, at: offset + 1, size: size)
    }

    /// Where the text of an ASCII string object at `offset` lies, read without building
    /// a ``Header``; `nil` for any other marker, or when the length is malformed or runs
    /// past the object area, which ``header(at:objectIndex:)`` reports.
    @inline(__always)
    func asciiStringPayload(at offset: Int) -> Range<Int>? {
        let marker = bytes[offset]
        guard marker >> 4 == 0x5 else { return nil }
        var (count, payload) = (Int(marker & 0x0F), offset + 1)
        if count == 0x0F {
            guard let extended = try? extendedCount(at: payload, objectIndex: 0) else { return nil }
            (count, payload) = extended
        }
        guard count <= areaEnd - payload else { return nil }
        return payload..<payload + count
    }

    /// The object at `offset` when it is a boolean, an integer of up to 8 bytes, a real,
    /// a date, a UID or an ASCII string; `nil` for anything else or a malformed object.
    @inline(__always)
    func simpleScalar(at offset: Int) -> PropertyListValue? {
        if let value = fixedWidthScalar(at: offset) { return value }
        if let number = uid(at: offset) { return .uid(PropertyListUID(number)) }
        guard let text = asciiStringPayload(at: offset) else { return nil }
        let characters = UnsafeRawBufferPointer(rebasing: bytes[text])
        guard ASCIIBytes.areASCII(characters) else { return nil }
        return .string(String(decoding: characters, as: UTF8.self))
    }

    /// The ASCII string whose text is `text`, from the object at `offset`.
    func asciiString(_ text: Range<Int>, at offset: Int, objectIndex: Int) throws(PropertyListError) -> String {
        let text = UnsafeRawBufferPointer(rebasing: bytes[text])
        guard ASCIIBytes.areASCII(text) else {
            throw PropertyListError(
                .invalidString, "non-ASCII byte in an ASCII string", offset: offset, objectIndex: objectIndex)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes a non-container object.
    func scalar(_ header: Header, objectIndex: Int) throws(PropertyListError) -> PropertyListValue {
        // Booleans, reals, dates and integers of up to 8 bytes; the header has checked the payload.
        if let value = fixedWidthScalar(at: header.offset) { return value }
        let payload = header.payload
        switch header.kind {
        case .integer:
            return try integer128(header, objectIndex: objectIndex)
        case .data:
            return .data(Data(UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + header.count])))
        case .asciiString, .utf16String:
            return .string(try string(header, objectIndex: objectIndex))
        case .uid:
            return .uid(PropertyListUID(BinaryPropertyListTrailer.readSized(bytes, at: payload, size: header.count)))
        case .boolean, .real, .date, .array, .dictionary:
            throw PropertyListError(
                .invalidObject, "\(header.kind) where a scalar was expected", offset: header.offset,
                objectIndex: objectIndex)
        }
    }

    /// A 16-byte integer is signed 128-bit, which writers use for values above `Int64.max`
    /// (1, 2 and 4-byte integers are unsigned, 8-byte signed: see ``fixedWidthScalar(at:)``).
    private func integer128(_ header: Header, objectIndex: Int) throws(PropertyListError) -> PropertyListValue {
        let payload = header.payload
        let high = Int64(bitPattern: bytes.loadUnaligned(fromByteOffset: payload, as: UInt64.self).bigEndian)
        let low = bytes.loadUnaligned(fromByteOffset: payload + 8, as: UInt64.self).bigEndian
        if high == 0 { return PropertyListValue(integer: low) }
        if high == -1, low >= 1 << 63 { return .integer(Int64(bitPattern: low)) }
        throw PropertyListError(
            .invalidObject, "128-bit integer outside Int64.min…UInt64.max", offset: header.offset,
            objectIndex: objectIndex)
    }

    /// ASCII strings must be 7-bit; UTF-16 strings big-endian with paired surrogates.
    func string(_ header: Header, objectIndex: Int) throws(PropertyListError) -> String {
        let payload = header.payload
        if header.kind == .asciiString {
            return try asciiString(payload..<payload + header.count, at: header.offset, objectIndex: objectIndex)
        }
        guard header.kind == .utf16String else {
            throw PropertyListError(
                .invalidObject, "\(header.kind) where a string was expected", offset: header.offset,
                objectIndex: objectIndex)
        }
        var units = [UInt16](repeating: 0, count: header.count)
        var expectLowSurrogate = false
        for position in 0..<header.count {
            let unit = bytes.loadUnaligned(fromByteOffset: payload + position * 2, as: UInt16.self).bigEndian
            let isHigh = unit & 0xFC00 == 0xD800
            let isLow = unit & 0xFC00 == 0xDC00
            guard isLow == expectLowSurrogate else {
                throw PropertyListError(
                    .invalidString, "unpaired UTF-16 surrogate", offset: payload + position * 2,
                    objectIndex: objectIndex)
            }
            expectLowSurrogate = isHigh
            units[position] = unit
        }
        guard !expectLowSurrogate else {
            throw PropertyListError(
                .invalidString, "UTF-16 string ends inside a surrogate pair", offset: header.offset,
                objectIndex: objectIndex)
        }
        return String(decoding: units, as: UTF16.self)
    }
}
