/// Binary plists written byte by byte, for inputs no writer makes: corrupt trailers,
/// wide UIDs, offsets that point anywhere.
public enum BinaryPlistBytes {
    /// `bplist00`, then `objects` in order, then an offset table of `offsetSize`-byte
    /// entries (`offsets`, or where each object starts), then the trailer; any trailer
    /// field can be given to make it lie.
    public static func build(
        objects: [[UInt8]], top: UInt64 = 0, offsetSize: UInt8 = 1, referenceSize: UInt8 = 1,
        objectCount: UInt64? = nil, tableOffset: UInt64? = nil, offsets: [UInt64]? = nil
    ) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var computed: [UInt64] = []
        for object in objects {
            computed.append(UInt64(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        for offset in offsets ?? computed {
            bytes += (0..<Int(offsetSize)).reversed().map { UInt8(truncatingIfNeeded: offset >> (8 * UInt64($0))) }
        }
        bytes += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
        for field in [objectCount ?? UInt64(objects.count), top, tableOffset ?? table] {
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: field >> (8 * UInt64($0))) }
        }
        return bytes
    }
}
