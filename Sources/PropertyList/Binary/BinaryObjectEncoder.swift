/// Appends single objects in `bplist00` encoding.
struct BinaryObjectEncoder {
    let referenceSize: Int

    func appendScalar(_ value: PropertyListValue, to output: inout [UInt8]) {
        switch value {
        case .bool(let bool):
            output.append(bool ? 0x09 : 0x08)
        case .integer(let integer):
            Self.appendInteger(integer, to: &output)
        case .unsignedInteger(let integer):
            if integer <= UInt64(Int64.max) {
                Self.appendInteger(Int64(integer), to: &output)
            } else {
                // Above Int64.max: 16 bytes, read as a signed 128-bit integer.
                output.append(0x14)
                Self.appendBigEndian(0, width: 8, to: &output)
                Self.appendBigEndian(integer, width: 8, to: &output)
            }
        case .real(let real):
            output.append(0x23)
            Self.appendBigEndian(real.bitPattern, width: 8, to: &output)
        case .float(let float):
            output.append(0x22)
            Self.appendBigEndian(UInt64(float.bitPattern), width: 4, to: &output)
        case .date(let date):
            output.append(0x33)
            Self.appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8, to: &output)
        case .data(let data):
            appendMarker(0x4, count: data.count, to: &output)
            output.append(contentsOf: data)
        case .string(let string):
            appendString(string, to: &output)
        case .uid(let uid):
            let width = BinaryPropertyListWriter.byteWidth(forMaximum: uid.value)
            output.append(0x80 | UInt8(width - 1))
            Self.appendBigEndian(uid.value, width: width, to: &output)
        case .array, .dictionary:
            assertionFailure("containers are written by the object table")
        }
    }

    /// ASCII strings as bytes, all others as big-endian UTF-16, as Apple writes them.
    private func appendString(_ string: String, to output: inout [UInt8]) {
        var string = string
        let isASCII = string.withUTF8 { ASCIIBytes.areASCII(UnsafeRawBufferPointer($0)) }
        if isASCII {
            string.withUTF8 { utf8 in
                appendMarker(0x5, count: utf8.count, to: &output)
                output.append(contentsOf: utf8)
            }
        } else {
            appendMarker(0x6, count: string.utf16.count, to: &output)
            for unit in string.utf16 {
                output.append(UInt8(truncatingIfNeeded: unit >> 8))
                output.append(UInt8(truncatingIfNeeded: unit))
            }
        }
    }

    /// A marker with its count in the low nibble, or `F` followed by an integer object.
    func appendMarker(_ kind: UInt8, count: Int, to output: inout [UInt8]) {
        if count < 15 {
            output.append(kind << 4 | UInt8(count))
        } else {
            output.append(kind << 4 | 0x0F)
            Self.appendInteger(Int64(count), to: &output)
        }
    }

    func appendReferences(_ references: ArraySlice<Int>, to output: inout [UInt8]) {
        for reference in references {
            Self.appendBigEndian(UInt64(reference), width: referenceSize, to: &output)
        }
    }

    /// Non-negative values in 1, 2 or 4 unsigned bytes when they fit, else 8 signed.
    static func appendInteger(_ integer: Int64, to output: inout [UInt8]) {
        let width = integer < 0 ? 8 : BinaryPropertyListWriter.byteWidth(forMaximum: UInt64(integer))
        output.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(UInt64(bitPattern: integer), width: width, to: &output)
    }

    @inline(__always)
    static func appendBigEndian(_ value: UInt64, width: Int, to output: inout [UInt8]) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}
