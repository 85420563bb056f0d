#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Appends single objects, offset tables and trailers in `bplist00` encoding.
///
/// `package` so that writers that lay out objects themselves (the keyed archiver
/// writes archives straight to binary) share one encoding with the plist writer.
/// Inlinable because the archiver calls these per byte-sized field from another module,
/// where an opaque call costs more than the work.
package enum BinaryObjectEncoder {
    /// Appends a non-container value. Containers are laid out by the caller, which
    /// knows the object numbers: ``appendMarker(_:count:to:)`` then references.
    @inlinable
    package static func appendScalar(_ value: PropertyListValue, to output: inout [UInt8]) {
        switch value {
        case .bool(let bool):
            output.append(bool ? 0x09 : 0x08)
        case .integer(let integer):
            appendInteger(integer, to: &output)
        case .unsignedInteger(let integer):
            if integer <= UInt64(Int64.max) {
                appendInteger(Int64(integer), to: &output)
            } else {
                // Above Int64.max: 16 bytes, read as a signed 128-bit integer.
                output.append(0x14)
                appendBigEndian(0, width: 8, to: &output)
                appendBigEndian(integer, width: 8, to: &output)
            }
        case .real(let real):
            output.append(0x23)
            appendBigEndian(real.bitPattern, width: 8, to: &output)
        case .float(let float):
            output.append(0x22)
            appendBigEndian(UInt64(float.bitPattern), width: 4, to: &output)
        case .date(let date):
            output.append(0x33)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8, to: &output)
        case .data(let data):
            appendMarker(0x4, count: data.count, to: &output)
            output.append(contentsOf: data)
        case .string(let string):
            appendString(string, to: &output)
        case .uid(let uid):
            let width = byteWidth(forMaximum: uid.value)
            output.append(0x80 | UInt8(width - 1))
            appendBigEndian(uid.value, width: width, to: &output)
        case .array, .dictionary:
            assertionFailure("containers are laid out by the caller")
        }
    }

    /// ASCII strings as bytes, all others as big-endian UTF-16, as Apple writes them.
    @inlinable
    package static func appendString(_ string: String, to output: inout [UInt8]) {
        let wroteASCII = string.withUTF8Bytes { utf8 in
            guard ASCIIBytes.areASCII(UnsafeRawBufferPointer(utf8)) else { return false }
            appendMarker(0x5, count: utf8.count, to: &output)
            output.append(contentsOf: utf8)
            return true
        }
        guard !wroteASCII else { return }
        appendMarker(0x6, count: string.utf16.count, to: &output)
        for unit in string.utf16 {
            output.append(UInt8(truncatingIfNeeded: unit >> 8))
            output.append(UInt8(truncatingIfNeeded: unit))
        }
    }

    /// A marker (`0xA` array, `0xD` dictionary, `0x4` data…) with its count in the low
    /// nibble, or `F` followed by an integer object.
    @inlinable
    package static func appendMarker(_ kind: UInt8, count: Int, to output: inout [UInt8]) {
        if count < 15 {
            output.append(kind << 4 | UInt8(count))
        } else {
            output.append(kind << 4 | 0x0F)
            appendInteger(Int64(count), to: &output)
        }
    }

    /// Non-negative values in 1, 2 or 4 unsigned bytes when they fit, else 8 signed.
    @inlinable
    package static func appendInteger(_ integer: Int64, to output: inout [UInt8]) {
        let width = integer < 0 ? 8 : byteWidth(forMaximum: UInt64(integer))
        output.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(UInt64(bitPattern: integer), width: width, to: &output)
    }

    /// The offset table (each offset in the narrowest width that fits) and the trailer.
    ///
    /// Takes an array rather than any collection: called from another module, a generic
    /// version ran unspecialised, through witness tables for every offset.
    @inlinable
    package static func appendOffsetTableAndTrailer(
        offsets: [Int], referenceSize: Int, topObject: Int, to output: inout [UInt8]
    ) {
        let tableOffset = output.count
        let offsetSize = byteWidth(forMaximum: UInt64(tableOffset))
        offsets.withUnsafeBufferPointer { appendBigEndian($0, width: offsetSize, to: &output) }
        output.append(contentsOf: repeatElement(0, count: 6))
        output.append(UInt8(offsetSize))
        output.append(UInt8(referenceSize))
        appendBigEndian(UInt64(offsets.count), width: 8, to: &output)
        appendBigEndian(UInt64(topObject), width: 8, to: &output)
        appendBigEndian(UInt64(tableOffset), width: 8, to: &output)
    }

    /// 1, 2, 4 or 8: the widths every reader accepts for offsets and references.
    @inlinable
    package static func byteWidth(forMaximum value: UInt64) -> Int {
        switch value {
        case ..<(1 << 8): 1
        case ..<(1 << 16): 2
        case ..<(1 << 32): 4
        default: 8
        }
    }

    @inlinable @inline(__always)
    package static func appendBigEndian(_ value: UInt64, width: Int, to output: inout [UInt8]) {
        // One and two bytes are the common widths of references; unrolled, they skip
        // the loop's shifts.
        switch width {
        case 1:
            output.append(UInt8(truncatingIfNeeded: value))
        case 2:
            output.append(UInt8(truncatingIfNeeded: value >> 8))
            output.append(UInt8(truncatingIfNeeded: value))
        default:
            var shift = (width - 1) * 8
            while shift >= 0 {
                output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
                shift -= 8
            }
        }
    }

    /// Appends every value in `width` (1, 2, 4 or 8) big-endian bytes: references and
    /// offset tables, grown once and stored in place rather than appended byte by byte.
    @inlinable
    package static func appendBigEndian(_ values: UnsafeBufferPointer<Int>, width: Int, to output: inout [UInt8]) {
        precondition(width == 1 || width == 2 || width == 4 || width == 8, "big-endian width \(width)")
        var position = output.count
        output.append(contentsOf: repeatElement(0, count: values.count * width))
        output.withUnsafeMutableBytes { bytes in
            for value in values {
                switch width {
                case 1: bytes.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: position, as: UInt8.self)
                case 2:
                    bytes.storeBytes(
                        of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: position, as: UInt16.self)
                case 4:
                    bytes.storeBytes(
                        of: UInt32(truncatingIfNeeded: value).bigEndian, toByteOffset: position, as: UInt32.self)
                default:
                    bytes.storeBytes(
                        of: UInt64(truncatingIfNeeded: value).bigEndian, toByteOffset: position, as: UInt64.self)
                }
                position += width
            }
        }
    }
}
