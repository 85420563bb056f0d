package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension SandboxDirectory {
    /// The content of the regular file at `relativePath`, nil when nothing is there.
    ///
    /// Like ``contents(of:)`` (contained, links leading out refused) but never creates
    /// the directory or the container, and refuses a FIFO, device or socket with
    /// `SandboxError.Code.notRegularFile` instead of blocking on it: the file is
    /// opened with `O_NONBLOCK | O_NOFOLLOW` and checked with `fstat` before reading.
    /// - Throws: ``SandboxError``.
    package func regularFileContents(_ relativePath: String) throws(SandboxError) -> Data? {
        let components = try RelativePath.components(of: relativePath)
        do {
            return try withExistingResolver { resolver throws(SandboxError) in
                let location = try resolver.item(components, followFinalLink: true)
                defer { location.release(system) }
                return try engine.readRegular(location)
            }
        } catch .noSuchFile {
            return nil
        }
    }

    /// Replaces the file at `relativePath` durably and atomically, like
    /// ``write(_:to:)``, but refuses to replace a FIFO, device, socket or directory
    /// found there (`SandboxError.Code.notRegularFile`).
    package func replaceRegularFile(_ data: Data, at relativePath: String) throws(SandboxError) {
        try withItem(relativePath, followFinalLink: true) { location throws(SandboxError) in
            if try engine.exists(location) {
                let status = try engine.status(location)
                switch status.kind {
                case .regular: break
                case .directory: throw SandboxError(errno: EISDIR, path: location.path, operation: "write")
                default: throw FileEngine.notRegular(location.path)
                }
            }
            try engine.write(data, to: location)
        }
    }

    /// Like `withResolver`, but a missing container or directory is `.noSuchFile`
    /// instead of being created: for reads, which must leave no trace.
    func withExistingResolver<T>(_ body: (ContainedResolver) throws(SandboxError) -> T) throws(SandboxError) -> T {
        let rootPath = container.url.path
        let rootFD = try system.open(AT_FDCWD, rootPath, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: rootPath)
        defer { try? system.close(rootFD) }
        let directory = try ContainedResolver(system: system, root: rootFD, rootPath: rootPath)
            .directory(kind.pathComponents, create: false)
        defer { directory.close(system) }
        return try body(ContainedResolver(system: system, root: directory.fd, rootPath: directory.path))
    }
}

extension FileEngine {
    /// Reads a regular file without ever blocking on something else: opened with
    /// `O_NONBLOCK | O_NOFOLLOW`, checked with `fstat`, then read.
    func readRegular(_ location: Location) throws(SandboxError) -> Data {
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        let fd: Int32
        do {
            fd = try system.open(location.parent, location.name, flags: flags, path: location.path)
        } catch .tooManySymbolicLinks {
            // A link swapped in after it was resolved: refused, not followed.
            throw SandboxError(.outsideContainer, "a symbolic link appeared at the file", path: location.path)
        }
        defer { try? system.close(fd) }
        let status = try system.checked("stat", location.path) { () throws(Errno) in try system.fstat(fd) }
        switch status.kind {
        case .regular: return try readAll(fd, sizeHint: Int(clamping: status.size), path: location.path)
        case .directory: throw SandboxError(errno: EISDIR, path: location.path, operation: "read")
        default: throw Self.notRegular(location.path)
        }
    }

    static func notRegular(_ path: String) -> SandboxError {
        SandboxError(.notRegularFile, "a FIFO, device or socket is where a regular file should be", path: path)
    }
}

extension FileSystem {
    /// The system calls this file system makes, for building a container that makes
    /// the same ones (tests inject failures through them).
    package var systemCalls: SystemCalls { system }
}
