public import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file open for reading at any offset, piece by piece, so that looking up one value
/// in a large file reads little of it. The file stays open while this object lives.
///
/// Corresponds to `FileHandle(forReadingFrom:)` with `seek(toOffset:)` and
/// `read(upToCount:)`; reads do not share a file position, so they may come from any
/// thread.
///
/// ```swift
/// let file = try FileSystem.default.openForReading(URL(fileURLWithPath: "Items.plist"))
/// let plist = try BinaryPropertyList(reading: file)
/// ```
public final class RandomAccessFile: RandomAccessBytes {
    /// The file's size when it was opened.
    public let count: Int
    /// Names the file in errors.
    public let path: String
    private let descriptor: Int32
    private let system: SystemCalls

    init(descriptor: Int32, count: Int, path: String, system: SystemCalls) {
        self.descriptor = descriptor
        self.count = count
        self.path = path
        self.system = system
    }

    deinit { try? system.close(descriptor) }

    /// Fills `buffer` with the file's bytes from `offset`.
    /// - Throws: ``SandboxError``: the failed read's `errno`, or `.ioError` when the file
    ///   ends before `buffer` is full (it was shortened since it was opened).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SandboxError) {
        var filled = 0
        while filled < buffer.count {
            // At most 1 GiB a call: Darwin refuses counts above `INT_MAX`.
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<min(buffer.count, filled + (1 << 30))])
            let read: Int
            do {
                read = try system.pread(descriptor, rest, offset + filled)
            } catch  where error.rawValue == EINTR {
                continue
            } catch {
                throw SandboxError(errno: error.rawValue, path: path, operation: "read")
            }
            guard read > 0 else {
                throw SandboxError(
                    .ioError,
                    "the file ends at byte \(offset + filled), before the \(buffer.count) bytes read from \(offset)",
                    path: path)
            }
            filled += read
        }
    }
}
