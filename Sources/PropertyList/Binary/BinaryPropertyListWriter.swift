/// Writes `bplist00`.
///
/// Two passes: ``BinaryObjectTable`` numbers the objects (the root first, each
/// container before its children) and merges equal scalars into one object; then the
/// objects, the offset table and the trailer are written with the narrowest widths that
/// fit. Containers are never merged, so shared structure is not invented.
enum BinaryPropertyListWriter {
    /// - Throws: ``PropertyListError`` `.limitExceeded`, naming the key path, for a
    ///   container inside `maxDepth` others.
    static func write(_ value: PropertyListValue, maxDepth: Int = PropertyListLimits.default.maxDepth)
        throws(PropertyListError) -> [UInt8]
    {
        var table = BinaryObjectTable(maxDepth: maxDepth)
        try table.add(value, depth: 0)
        let referenceSize = BinaryObjectEncoder.byteWidth(forMaximum: UInt64(table.objects.count - 1))

        var output: [UInt8] = []
        output.reserveCapacity(table.estimatedSize(referenceSize: referenceSize))
        output.append(contentsOf: "bplist00".utf8)
        var offsets = [Int](repeating: 0, count: table.objects.count)
        for (index, object) in table.objects.enumerated() {
            offsets[index] = output.count
            switch object {
            case .scalar(let scalar):
                BinaryObjectEncoder.appendScalar(scalar, to: &output)
            case .array(let start, let count):
                BinaryObjectEncoder.appendMarker(0xA, count: count, to: &output)
                appendReferences(table.references[start..<start + count], width: referenceSize, to: &output)
            case .dictionary(let start, let count):
                BinaryObjectEncoder.appendMarker(0xD, count: count, to: &output)
                appendReferences(table.references[start..<start + 2 * count], width: referenceSize, to: &output)
            }
        }
        BinaryObjectEncoder.appendOffsetTableAndTrailer(
            offsets: offsets, referenceSize: referenceSize, topObject: 0, to: &output)
        return output
    }

    private static func appendReferences(_ references: ArraySlice<Int>, width: Int, to output: inout [UInt8]) {
        references.withUnsafeBufferPointer { BinaryObjectEncoder.appendBigEndian($0, width: width, to: &output) }
    }
}
