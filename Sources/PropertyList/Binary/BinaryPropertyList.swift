/// A validated `bplist00` document with random access to its objects.
///
/// Opening checks the header, the trailer and every entry of the offset table, so
/// later accesses only need to check what an object itself declares. Objects can be
/// read one at a time by number (``object(at:)``), which is what a keyed unarchiver
/// needs to decode `$objects` on demand, or all at once (``topValue()``).
///
/// Corresponds to the binary branch of `PropertyListSerialization.propertyList(from:options:format:)`.
///
/// ```swift
/// let plist = try BinaryPropertyList(bytes: bytes)
/// if case .array(let references) = try plist.object(at: plist.topObjectIndex) {
///     print(references.count, "elements")
/// }
/// ```
public struct BinaryPropertyList: Sendable {
    /// One object as stored: scalars decoded, containers as object numbers.
    public enum Object: Sendable, Equatable {
        case scalar(PropertyListValue)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    let bytes: BinaryDocumentBytes
    let limits: PropertyListLimits
    let trailer: BinaryPropertyListTrailer

    /// How many objects the offset table lists.
    public var objectCount: Int { trailer.objectCount }
    /// The number of the root object.
    public var topObjectIndex: Int { trailer.topObject }

    /// Validates the document's layout (header, trailer and offset table); reads no
    /// object yet. The document keeps a copy of `bytes`, made once.
    /// - Throws: ``PropertyListError`` (`.invalidHeader`, `.invalidTrailer`, `.offsetOutOfRange`, `.truncated`;
    ///   `.limitExceeded` when there is no memory for the copy).
    public init(bytes: [UInt8], limits: PropertyListLimits = .default) throws(PropertyListError) {
        let copy = bytes.withUnsafeBytes { raw in
            Result { () throws(PropertyListError) in try BinaryDocumentBytes(copying: raw) }
        }
        try self.init(bytes: copy.get(), limits: limits)
    }

    /// ``init(bytes:limits:)`` for bytes in any contiguous memory (`Data`, say), copied
    /// once.
    /// - Throws: ``PropertyListError``, as ``init(bytes:limits:)``.
    public init(copying bytes: UnsafeRawBufferPointer, limits: PropertyListLimits = .default) throws(PropertyListError)
    {
        try self.init(bytes: try BinaryDocumentBytes(copying: bytes), limits: limits)
    }

    /// Opens the document `source` holds (a file, say), reading only what its answers
    /// need: opening reads the header, the trailer and the offset table, and each answer
    /// the objects it visits. An open document costs what it has read plus a constant.
    /// - Throws: ``PropertyListError``, as ``init(bytes:limits:)``; `.readFailed` when
    ///   `source` fails to give bytes, then or later.
    public init(reading source: any RandomAccessBytes, limits: PropertyListLimits = .default) throws(PropertyListError)
    {
        try self.init(reading: source, limits: limits, pageSize: DocumentPages.defaultPageSize)
    }

    /// Opens the document `source` holds, read whole at once into memory of its own: for
    /// a reader that will visit every object, where ``init(reading:limits:)`` would
    /// read piece by piece, and ``init(bytes:limits:)`` would copy bytes already read.
    /// - Throws: ``PropertyListError``, as ``init(reading:limits:)``.
    package init(readingAll source: any RandomAccessBytes, limits: PropertyListLimits = .default)
        throws(PropertyListError)
    {
        try self.init(bytes: try BinaryDocumentBytes(readingAll: source), limits: limits)
    }

    /// ``init(reading:limits:)`` reading `pageSize` bytes at a time: tests read a byte
    /// at a time, so that every answer must have read each byte it uses.
    init(reading source: any RandomAccessBytes, limits: PropertyListLimits, pageSize: Int) throws(PropertyListError) {
        try self.init(bytes: try BinaryDocumentBytes(reading: source, pageSize: pageSize), limits: limits)
    }

    private init(bytes: BinaryDocumentBytes, limits: PropertyListLimits) throws(PropertyListError) {
        self.bytes = bytes
        self.limits = limits
        self.trailer = try BinaryPropertyListTrailer(validating: bytes.raw, loading: bytes.load)
    }

    /// Runs `body` with a reader of the document's objects.
    @inline(__always)
    func withReader<Result, Failure: Error>(
        _ body: (BinaryObjectReader) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(BinaryObjectReader(bytes: bytes.raw, trailer: trailer))
    }

    /// Reads one object without following its references.
    /// - Throws: ``PropertyListError``; `.referenceOutOfRange` for a bad `index`.
    public func object(at index: Int) throws(PropertyListError) -> Object {
        try withReader { (reader) throws(PropertyListError) in
            let header = try loadedHeader(ofObject: index, reader)
            switch header.kind {
            case .array:
                return .array(try reader.references(at: header.payload, count: header.count, objectIndex: index))
            case .dictionary:
                let all = try reader.references(at: header.payload, count: header.count * 2, objectIndex: index)
                return .dictionary(keys: Array(all[..<header.count]), values: Array(all[header.count...]))
            default:
                return .scalar(try reader.scalar(header, objectIndex: index))
            }
        }
    }

    /// The whole tree below object `index` (the root when omitted), within the limits it was opened with.
    /// Shared objects are decoded once and shared; a container that contains itself
    /// throws `.cyclicReference`.
    ///
    /// Each call sets up bookkeeping sized to the object table; to visit many
    /// containers one by one, use ``object(at:)``. A document opened on a source reads
    /// the objects of the tree before building it.
    /// - Throws: ``PropertyListError``.
    public func value(at index: Int? = nil) throws(PropertyListError) -> PropertyListValue {
        let root = index ?? trailer.topObject
        return try withReader { (reader) throws(PropertyListError) in
            let header = try loadedHeader(ofObject: root, reader)
            guard header.kind == .array || header.kind == .dictionary else {
                return try reader.scalar(header, objectIndex: root)
            }
            if !bytes.isResident { try loadTree(below: root) }
            var materializer = BinaryTreeMaterializer(reader: reader, limits: limits)
            return try materializer.value(ofObject: root, depth: 0)
        }
    }

    /// The root object's whole tree; see ``value(at:)-(Int?)``.
    public func topValue() throws(PropertyListError) -> PropertyListValue {
        try value(at: nil)
    }

    /// The root object's whole tree, read from bytes valid for the call only: a full
    /// read, with the same checks as a document's but without the copy one keeps.
    /// - Throws: ``PropertyListError``, as ``init(bytes:limits:)`` and ``value(at:)-(Int?)``.
    static func topValue(of bytes: UnsafeRawBufferPointer, limits: PropertyListLimits) throws(PropertyListError)
        -> PropertyListValue
    {
        let trailer = try BinaryPropertyListTrailer(validating: bytes)
        var materializer = BinaryTreeMaterializer(
            reader: BinaryObjectReader(bytes: bytes, trailer: trailer), limits: limits)
        return try materializer.value(ofObject: trailer.topObject, depth: 0)
    }
}
