/// Memory that holds a whole document and stays valid for as long as the object lives,
/// such as a file mapped read-only. A ``BinaryPropertyList`` opened on it reads the
/// bytes where they are, without copying them. Its contents may change underneath (a
/// mapped file rewritten in place): every read is then checked against the object area.
public protocol ContiguousByteStorage: AnyObject, Sendable {
    /// The document's bytes; the same address on every call.
    var bytes: UnsafeRawBufferPointer { get }
}

/// The bytes a ``BinaryPropertyList`` reads: a copy it owns, or the memory of a storage
/// object it keeps alive, as one pointer taken once.
///
/// One object, so that a document stays a single reference to copy: a document holding
/// an existential, or more than one reference, was copied through the runtime's value
/// witnesses. A pointer rather than an array, because an array's bytes can be reached
/// only inside a closure, which the optimizer did not inline on every field the keyed
/// unarchiver reads (+5% instructions decoding 100k items).
// @unchecked: every field is immutable; `owner` keeps `raw` valid while it lives.
final class BinaryDocumentBytes: @unchecked Sendable {
    private let owner: AnyObject
    let raw: UnsafeRawBufferPointer
    /// Whether the contents can change while the document is open; the offsets checked
    /// when it was opened must then be checked again on every read.
    let mayChange: Bool

    /// A copy of `source`, which nothing else can change.
    init(copying source: UnsafeRawBufferPointer) {
        let copy = CopiedBytes(source)
        owner = copy
        raw = copy.bytes
        mayChange = false
    }

    init(_ shared: any ContiguousByteStorage) {
        owner = shared
        raw = shared.bytes
        mayChange = true
    }
}

/// A copy of some bytes in memory of its own, freed with the object.
private final class CopiedBytes {
    let bytes: UnsafeRawBufferPointer

    init(_ source: UnsafeRawBufferPointer) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: source.count, alignment: 16)
        if source.count > 0 { copy.copyMemory(from: source) }
        bytes = UnsafeRawBufferPointer(copy)
    }

    deinit { bytes.deallocate() }
}
