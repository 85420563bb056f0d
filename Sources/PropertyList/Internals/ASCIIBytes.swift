/// Whether bytes are 7-bit ASCII, checked eight at a time.
@usableFromInline
enum ASCIIBytes {
    @usableFromInline
    static func areASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        var bits: UInt64 = 0
        while offset + 8 <= bytes.count {
            bits |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            bits |= UInt64(bytes[offset])
            offset += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }
}
