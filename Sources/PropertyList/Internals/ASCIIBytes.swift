/// Whether bytes are 7-bit ASCII, checked eight at a time.
@usableFromInline
enum ASCIIBytes {
    @usableFromInline
    static func areASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var bits: UInt64 = 0
        if count >= 8 {
            var offset = 0
            while offset + 8 <= count {
                bits |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            // The last eight bytes, overlapping what was checked, cover the rest.
            bits |= bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else if count >= 4 {
            bits =
                UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
                | UInt64(bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
        } else {
            for offset in 0..<count { bits |= UInt64(bytes[offset]) }
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }
}
