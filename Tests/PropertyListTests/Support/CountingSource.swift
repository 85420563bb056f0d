import Locking
import PropertyList

/// A document's bytes given piece by piece, as a file read with `pread` gives them,
/// counting how many bytes were asked for, and failing while told to.
final class CountingSource: RandomAccessBytes {
    struct Failure: Error {}

    let bytes: [UInt8]
    private let state = Locked((given: 0, failing: false))

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }
    var bytesGiven: Int { state.withLock { $0.given } }

    /// Makes every read from now on fail, or succeed.
    func fails(_ fails: Bool) { state.withLock { $0.failing = fails } }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        precondition(offset >= 0 && offset + buffer.count <= bytes.count, "read past the end")
        try state.withLock { state in
            if state.failing { throw Failure() }
            state.given += buffer.count
        }
        bytes.withUnsafeBytes {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + buffer.count]))
        }
    }
}
