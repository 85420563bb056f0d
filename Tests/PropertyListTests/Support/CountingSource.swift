import PropertyList
import Synchronization

/// A document's bytes given piece by piece, as a file read with `pread` gives them,
/// counting how many bytes were asked for.
final class CountingSource: RandomAccessBytes {
    let bytes: [UInt8]
    private let given = Mutex(0)

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }
    var bytesGiven: Int { given.withLock { $0 } }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        precondition(offset >= 0 && offset + buffer.count <= bytes.count, "read past the end")
        bytes.withUnsafeBytes {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + buffer.count]))
        }
        given.withLock { $0 += buffer.count }
    }
}

/// A document's bytes given piece by piece by a source that fails while told to.
final class FailingSource: RandomAccessBytes {
    struct Failure: Error {}

    let bytes: [UInt8]
    private let failing = Mutex(false)

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    /// Makes every read from now on fail, or succeed.
    func fails(_ fails: Bool) { failing.withLock { $0 = fails } }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        if failing.withLock({ $0 }) { throw Failure() }
        bytes.withUnsafeBytes {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + buffer.count]))
        }
    }
}
