/// Memory that holds a whole document and stays valid and unchanged for as long as
/// the object lives, such as a file mapped read-only. A ``BinaryPropertyList`` opened on
/// it reads the bytes where they are, without copying them.
public protocol ContiguousByteStorage: AnyObject, Sendable {
    /// The document's bytes; the same address and contents on every call.
    var bytes: UnsafeRawBufferPointer { get }
}

/// The bytes a ``BinaryPropertyList`` reads: an array it shares, or the memory of a
/// storage object it keeps alive.
///
/// One object, so that a document stays a single reference to copy, with the storage
/// held as a plain reference and its bytes as a pointer taken once: a document holding
/// an existential, or more than one reference, was copied through the runtime's value
/// witnesses. Inlinable: the keyed unarchiver reads a document on every field it
/// decodes, from another module.
// @unchecked: every field is immutable; `owner` is a `ContiguousByteStorage`, which is
// Sendable and promises that `sharedBytes` stays valid and unchanged while it lives.
@usableFromInline
final class BinaryDocumentBytes: @unchecked Sendable {
    @usableFromInline let array: [UInt8]
    @usableFromInline let owner: AnyObject?
    @usableFromInline let sharedBytes: UnsafeRawBufferPointer?

    init(_ array: [UInt8]) {
        self.array = array
        owner = nil
        sharedBytes = nil
    }

    init(_ shared: any ContiguousByteStorage) {
        array = []
        owner = shared
        sharedBytes = shared.bytes
    }

    /// The standard library's `withUnsafeBytes` rethrows as `any Error`; this keeps the
    /// body's error type.
    @inlinable @inline(__always)
    func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        if let sharedBytes { return try body(sharedBytes) }
        return try array.withUnsafeBufferPointer { (buffer) throws(Failure) in try body(UnsafeRawBufferPointer(buffer))
        }
    }
}
