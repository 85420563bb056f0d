#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

/// Where a document's bytes can be read piece by piece, such as a file read with
/// `pread`. A ``BinaryPropertyList`` opened on one reads only the pieces its answers
/// need, into memory of its own, so what it has read cannot change underneath it.
public protocol RandomAccessBytes: Sendable {
    /// How many bytes the document has.
    var count: Int { get }
    /// Fills `buffer` with the bytes that start at `offset`; the caller keeps
    /// `offset + buffer.count` within ``count``.
    /// - Throws: when they cannot all be read: a failed read, or a source that shrank.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws
}

/// The bytes a ``BinaryPropertyList`` reads, as one pointer taken once: a copy it owns,
/// or memory the size of a ``RandomAccessBytes`` source into which the pieces it needs
/// are read. Either way nothing else writes them, so the offsets checked when the
/// document was opened stay checked.
///
/// One object, so that a document stays a single reference to copy: a document holding
/// an existential, or more than one reference, was copied through the runtime's value
/// witnesses. A pointer rather than an array, because an array's bytes can be reached
/// only inside a closure, which the optimizer did not inline on every field the keyed
/// unarchiver reads (+5% instructions decoding 100k items).
// @unchecked: `raw` and `pages` never change; the bytes behind `raw` are written only by
// `pages`, under its lock, before it reports them read.
final class BinaryDocumentBytes: @unchecked Sendable {
    let raw: UnsafeRawBufferPointer
    /// The pieces read so far, for bytes read on demand; `nil` when all of them are in memory.
    private let pages: DocumentPages?

    /// A copy of `source`, which nothing else can change.
    /// - Throws: ``PropertyListError`` `.limitExceeded` when there is no room for it.
    init(copying source: UnsafeRawBufferPointer) throws(PropertyListError) {
        let copy = try Self.room(source.count)
        if source.count > 0 { copy.copyMemory(from: source) }
        raw = UnsafeRawBufferPointer(copy)
        pages = nil
    }

    /// All of `source`, read into memory of its own at once.
    /// - Throws: ``PropertyListError``: `.limitExceeded` when there is no room for it,
    ///   `.readFailed` when `source` cannot give every byte.
    init(readingAll source: any RandomAccessBytes) throws(PropertyListError) {
        let room = try Self.room(max(source.count, 0))
        do {
            try source.read(into: room, at: 0)
        } catch {
            free(room.baseAddress)
            throw PropertyListError(.readFailed, "the document could not be read: \(error)", offset: 0)
        }
        raw = UnsafeRawBufferPointer(room)
        pages = nil
    }

    /// Room for all of `source`, of which nothing is read yet; see ``load(_:)``.
    /// - Throws: ``PropertyListError`` `.limitExceeded` when there is no room for it.
    init(reading source: any RandomAccessBytes, pageSize: Int) throws(PropertyListError) {
        // Pages the process never writes take no memory, so an open document costs what
        // it has read.
        let room = try Self.room(max(source.count, 0))
        // Read in pieces smaller than a page, as tests read, the room starts out as one
        // byte value that no answer can hide: a byte used without being read shows.
        if pageSize < DocumentPages.defaultPageSize, room.count > 0 {
            room.initializeMemory(as: UInt8.self, repeating: 0xA5)
        }
        raw = UnsafeRawBufferPointer(room)
        pages = DocumentPages(source: source, room: room, pageSize: pageSize)
    }

    deinit { free(UnsafeMutableRawPointer(mutating: raw.baseAddress)) }

    /// `count` bytes of memory, or an error where `allocate` would stop the process:
    /// a file's size is the input's to choose.
    private static func room(_ count: Int) throws(PropertyListError) -> UnsafeMutableRawBufferPointer {
        guard let start = malloc(max(count, 1)) else {
            throw PropertyListError(.limitExceeded, "no memory for a document of \(count) bytes")
        }
        return UnsafeMutableRawBufferPointer(start: start, count: count)
    }

    /// Whether every byte is in memory, so that any range can be read without ``load(_:)``.
    var isResident: Bool { pages == nil }

    /// Makes `range` (within the document) readable: reads the pages of it not read yet.
    /// - Throws: ``PropertyListError`` `.readFailed` when the source cannot give them.
    @inline(__always)
    func load(_ range: Range<Int>) throws(PropertyListError) {
        if let pages, !range.isEmpty { try pages.load(range) }
    }
}
