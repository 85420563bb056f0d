/// Writes `bplist00`.
///
/// ``BinaryObjectTable`` numbers the objects (the root first, each container before its
/// children), merges equal scalars into one object and writes each scalar as it meets
/// it; then the containers, the offset table and the trailer follow, with the narrowest
/// widths that fit. Containers are never merged, so shared structure is not invented.
enum BinaryPropertyListWriter {
    /// - Throws: ``PropertyListError`` `.limitExceeded`, naming the key path, for a
    ///   container inside `maxDepth` others.
    static func write(_ value: PropertyListValue, maxDepth: Int = PropertyListLimits.default.maxDepth)
        throws(PropertyListError) -> [UInt8]
    {
        var table = BinaryObjectTable(maxDepth: maxDepth)
        table.reserveRoom(for: value)
        try table.add(value, depth: 0)
        return table.finish()
    }
}
