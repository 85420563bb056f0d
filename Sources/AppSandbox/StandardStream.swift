#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output or standard error, written with `write(2)` so that a closed or broken
/// stream is an error to handle, never a trap.
///
/// `FileHandle.write(_:)` traps on Linux when the descriptor is closed (`EBADF`) or the
/// reader has gone (`EPIPE`): a daemon whose standard error was closed would crash
/// while reporting a failed save. Every layer writes to the standard streams through
/// this, and so can an app.
///
/// ```swift
/// StandardStream.error.report("save failed: \(error)")   // never traps
/// try StandardStream.output.write(bytes)                 // throws when stdout is gone
/// ```
public enum StandardStream: Int32, Sendable {
    case output = 1
    case error = 2

    /// Writes all of `text`, retrying after a signal and after partial writes.
    /// - Throws: ``SandboxError`` with the `errno` when the stream is closed, full or gone.
    public func write(_ text: String) throws(SandboxError) {
        try write(Array(text.utf8))
    }

    /// Writes all of `bytes`; see ``write(_:)-(String)``.
    /// - Throws: ``SandboxError`` with the `errno` when the stream is closed, full or gone.
    public func write(_ bytes: [UInt8]) throws(SandboxError) {
        var written = 0
        while written < bytes.count {
            do {
                written += try bytes.withUnsafeBufferPointer { (buffer) throws(Errno) in
                    try SystemCalls.live.write(
                        rawValue, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[written...])))
                }
            } catch  where error.rawValue == EINTR {
                continue
            } catch {
                throw SandboxError(errno: error.rawValue, path: name, operation: "write")
            }
        }
    }

    private var name: String { self == .output ? "standard output" : "standard error" }

    /// Writes a line for a person to read (a reported error, a log line). A failure is
    /// dropped: there is nowhere left to report it.
    public func report(_ line: String) {
        try? write(line.hasSuffix("\n") ? line : line + "\n")
    }
}
