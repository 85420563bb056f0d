/// The reading of objects into a document opened on a ``RandomAccessBytes`` source,
/// before they are decoded. A document made from bytes in memory has them all already,
/// and each of these calls costs it one test.
extension BinaryPropertyList {
    /// The most bytes a marker and its length can take: the marker, then an integer
    /// object of up to 8 bytes.
    private static let longestHeader = 10

    /// The header of object `index`, with the object's bytes read into the document:
    /// its marker and length, and its payload too unless `withPayload` is false.
    /// - Throws: ``PropertyListError`` for a bad `index`, a malformed object, or bytes
    ///   the source fails to give.
    @inline(__always)
    func loadedHeader(ofObject index: Int, _ reader: BinaryObjectReader, withPayload: Bool = true)
        throws(PropertyListError) -> BinaryObjectReader.Header
    {
        let offset = try reader.offset(ofObject: index)
        guard !bytes.isResident else { return try reader.header(at: offset, objectIndex: index) }
        try bytes.load(offset..<min(offset + Self.longestHeader, trailer.offsetTableOffset))
        let header = try reader.header(at: offset, objectIndex: index)
        if withPayload { try bytes.load(header.payload..<header.payload + reader.payloadLength(of: header)) }
        return header
    }

    /// Reads every object below `root` into the document, so that the full read of
    /// that tree finds them. Objects are visited once each, however often they are
    /// referenced, and without recursion. Many objects can share one offset, so the
    /// references scanned are counted too: once they add up to more than the object
    /// area could hold, the whole area is read instead, which bounds the walk by the
    /// size of the file. A malformed object is passed over: the full read reports it,
    /// as it would in a document read whole.
    /// - Throws: ``PropertyListError`` `.readFailed` when the source fails to give bytes.
    func loadTree(below root: Int) throws(PropertyListError) {
        var visited = BitSet(count: trailer.objectCount)
        var pending = [root]
        visited.insert(root)
        var scanBudget = trailer.offsetTableOffset / trailer.referenceSize
        try withReader { (reader) throws(PropertyListError) in
            while let index = pending.popLast() {
                let header: BinaryObjectReader.Header
                do throws(PropertyListError) {
                    header = try loadedHeader(ofObject: index, reader)
                } catch  where error.code == .readFailed {
                    throw error
                } catch {
                    continue
                }
                let count = header.kind == .array ? header.count : header.kind == .dictionary ? header.count * 2 : 0
                scanBudget -= count
                guard scanBudget >= 0 else {
                    try bytes.load(0..<trailer.offsetTableOffset)
                    return
                }
                for position in 0..<count {
                    guard let child = reader.reference(at: header.payload, position: position),
                        visited.insert(child)
                    else { continue }
                    pending.append(child)
                }
            }
        }
    }
}
