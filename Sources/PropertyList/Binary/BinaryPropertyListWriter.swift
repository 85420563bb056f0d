/// Writes `bplist00`.
///
/// Two passes: ``BinaryObjectTable`` numbers the objects (the root first, each
/// container before its children) and merges equal scalars into one object; then the
/// objects, the offset table and the trailer are written with the narrowest widths that
/// fit. Containers are never merged, so shared structure is not invented.
enum BinaryPropertyListWriter {
    static func write(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var table = BinaryObjectTable()
        table.add(value)
        let objectCount = table.objects.count
        let referenceSize = byteWidth(forMaximum: UInt64(objectCount - 1))

        var output: [UInt8] = []
        output.reserveCapacity(table.estimatedSize(referenceSize: referenceSize))
        output.append(contentsOf: "bplist00".utf8)
        var offsets = [Int](repeating: 0, count: objectCount)
        let encoder = BinaryObjectEncoder(referenceSize: referenceSize)
        for (index, object) in table.objects.enumerated() {
            offsets[index] = output.count
            switch object {
            case .scalar(let scalar):
                encoder.appendScalar(scalar, to: &output)
            case .array(let start, let count):
                encoder.appendMarker(0xA, count: count, to: &output)
                encoder.appendReferences(table.references[start..<start + count], to: &output)
            case .dictionary(let start, let count):
                encoder.appendMarker(0xD, count: count, to: &output)
                encoder.appendReferences(table.references[start..<start + 2 * count], to: &output)
            }
        }

        let offsetTableOffset = output.count
        let offsetSize = byteWidth(forMaximum: UInt64(offsetTableOffset))
        for offset in offsets {
            BinaryObjectEncoder.appendBigEndian(UInt64(offset), width: offsetSize, to: &output)
        }
        output.append(contentsOf: repeatElement(0, count: 6))
        output.append(UInt8(offsetSize))
        output.append(UInt8(referenceSize))
        BinaryObjectEncoder.appendBigEndian(UInt64(objectCount), width: 8, to: &output)
        BinaryObjectEncoder.appendBigEndian(0, width: 8, to: &output)
        BinaryObjectEncoder.appendBigEndian(UInt64(offsetTableOffset), width: 8, to: &output)
        return output
    }

    /// 1, 2, 4 or 8: the widths every reader accepts for offsets and references.
    static func byteWidth(forMaximum value: UInt64) -> Int {
        switch value {
        case ..<(1 << 8): 1
        case ..<(1 << 16): 2
        case ..<(1 << 32): 4
        default: 8
        }
    }
}
