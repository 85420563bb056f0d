import Foundation

/// A regular file open for appending, found through the contained resolver: what a
/// journal writes its records to. Each step is a fault-injection point.
struct AppendingFile {
    let system: SystemCalls
    let fd: Int32
    let path: String

    /// Writes all of `bytes` at the end of the file, continuing after short writes and
    /// retrying `EINTR`.
    func append(_ bytes: UnsafeRawBufferPointer) throws(SandboxError) {
        var offset = 0
        while offset < bytes.count {
            do throws(Errno) {
                let written = try system.write(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                guard written > 0 else { throw Errno(EIO) }
                offset += written
            } catch  where error.rawValue == EINTR {
                continue
            } catch {
                throw SandboxError(errno: error.rawValue, path: path, operation: "write")
            }
        }
    }

    /// `fsync`, as ``FileEngine/sync(_:path:)`` does it.
    func sync() throws(SandboxError) {
        try FileEngine(system: system).sync(fd, path: path)
    }

    /// Cuts the file to `length` bytes and makes that durable.
    func truncate(to length: Int) throws(SandboxError) {
        try system.checked("truncate", path) { () throws(Errno) in try system.ftruncate(fd, length) }
        try sync()
    }

    func close() { try? system.close(fd) }
}

extension SandboxDirectory {
    /// Opens the regular file at `relativePath` for appending, refusing a link that
    /// appears after resolution, a FIFO, a device or a directory.
    /// - Throws: ``SandboxError``; `.noSuchFile` when nothing is there.
    func openForAppending(_ relativePath: String) throws(SandboxError) -> AppendingFile {
        try withItem(relativePath, followFinalLink: true) { location throws(SandboxError) in
            let flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
            let fd = try system.open(location.parent, location.name, flags: flags, path: location.path)
            let file = AppendingFile(system: system, fd: fd, path: location.path)
            do throws(SandboxError) {
                let status = try system.checked("stat", location.path) { () throws(Errno) in try system.fstat(fd) }
                guard status.kind == .regular else { throw FileEngine.notRegular(location.path) }
            } catch {
                file.close()
                throw error
            }
            return file
        }
    }
}
