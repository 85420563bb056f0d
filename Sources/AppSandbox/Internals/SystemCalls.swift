#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An `errno` value thrown by the system-call layer; mapped to ``SandboxError`` in
/// exactly one place (`SandboxError.init(errno:path:)`).
package struct Errno: Error, Equatable, Sendable {
    package var rawValue: Int32
    package init(_ rawValue: Int32) { self.rawValue = rawValue }
}

/// The few facts about an inode this layer needs, read by `fstat`/`fstatat`.
package struct FileStatus: Sendable, Equatable {
    package enum Kind: Sendable { case regular, directory, symbolicLink, other }
    package var kind: Kind
    /// Permission bits, including set-id and sticky bits (`st_mode & 0o7777`).
    package var permissions: UInt32
    package var size: Int64
    /// Seconds since 1970 of the last modification.
    package var modificationTime: Double
    package var device: UInt64
    package var inode: UInt64
    package var owner: UInt32
    package var group: UInt32
}

/// Every POSIX call the sandbox makes, one function value per call.
///
/// The live table calls the C library; tests copy it and replace one entry to inject
/// `ENOSPC`, `EIO`, `EACCES`, `EROFS` or `EINTR` at a chosen step (CI runs as root, so
/// permission errors cannot be provoked with `chmod`). Entries report failure by
/// throwing the `errno` they read right after the call, before anything else can
/// change it. None of them retries `EINTR`: the callers decide, because the right
/// answer differs per call (see `FileEngine`).
package struct SystemCalls: Sendable {
    package var openat:
        @Sendable (_ directory: Int32, _ path: String, _ flags: Int32, _ mode: UInt32) throws(Errno) -> Int32
    package var close: @Sendable (_ fd: Int32) throws(Errno) -> Void
    package var read: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int
    package var write: @Sendable (_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int
    package var fsync: @Sendable (_ fd: Int32) throws(Errno) -> Void
    package var fstat: @Sendable (_ fd: Int32) throws(Errno) -> FileStatus
    /// `fstatat`; `followSymlink: false` passes `AT_SYMLINK_NOFOLLOW`.
    package var fstatat:
        @Sendable (_ directory: Int32, _ path: String, _ followSymlink: Bool) throws(Errno) -> FileStatus
    package var fchmod: @Sendable (_ fd: Int32, _ mode: UInt32) throws(Errno) -> Void
    package var fchown: @Sendable (_ fd: Int32, _ owner: UInt32, _ group: UInt32) throws(Errno) -> Void
    package var renameat:
        @Sendable (_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) throws(Errno) -> Void
    package var linkat:
        @Sendable (_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) throws(Errno) -> Void
    /// `unlinkat`; `directory: true` passes `AT_REMOVEDIR`.
    package var unlinkat: @Sendable (_ directory: Int32, _ path: String, _ isDirectory: Bool) throws(Errno) -> Void
    package var mkdirat: @Sendable (_ directory: Int32, _ path: String, _ mode: UInt32) throws(Errno) -> Void
    package var readlinkat: @Sendable (_ directory: Int32, _ path: String) throws(Errno) -> String
    package var symlinkat: @Sendable (_ target: String, _ directory: Int32, _ path: String) throws(Errno) -> Void
    /// The names in an open directory (without `.` and `..`), read through a duplicate
    /// of `fd` so the caller's descriptor stays open. Names that are not UTF-8 are skipped.
    package var readDirectory: @Sendable (_ fd: Int32) throws(Errno) -> [String]
    package var getxattr: @Sendable (_ fd: Int32, _ name: String) throws(Errno) -> [UInt8]
    package var setxattr: @Sendable (_ fd: Int32, _ name: String, _ value: [UInt8]) throws(Errno) -> Void
    package var removexattr: @Sendable (_ fd: Int32, _ name: String) throws(Errno) -> Void
    package var flock: @Sendable (_ fd: Int32, _ operation: Int32) throws(Errno) -> Void
    package var realpath: @Sendable (_ path: String) throws(Errno) -> String
    /// `renameat2(…, RENAME_EXCHANGE)`: swaps two existing names in one atomic step.
    /// Throws `ENOSYS` where the C library or the kernel lacks it (callers then fall
    /// back to two renames), `EINVAL` where the file system does not support it.
    package var renameExchange:
        @Sendable (_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) throws(Errno) -> Void =
            liveRenameExchange

    /// `pread`: reads into `buffer` from `offset` in the file, without moving the file's
    /// position; the count read, 0 at the end of the file.
    package var pread:
        @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, _ offset: Int) throws(Errno) -> Int =
            livePread

    /// `ftruncate`: cuts the file to `length` bytes (a journal drops what was written
    /// after its last durable record).
    package var ftruncate: @Sendable (_ fd: Int32, _ length: Int) throws(Errno) -> Void = liveFtruncate

    package static let live = SystemCalls(
        openat: { directory, path, flags, mode throws(Errno) in
            try withPath(path) { Int(sys_openat(directory, $0, flags, mode)) }.int32
        },
        close: { fd throws(Errno) in try check(sys_close(fd)) },
        read: { fd, buffer throws(Errno) in
            let count = sys_read(fd, buffer.baseAddress, buffer.count)
            if count < 0 { throw Errno(errno) }
            return count
        },
        write: { fd, buffer throws(Errno) in
            let count = sys_write(fd, buffer.baseAddress, buffer.count)
            if count < 0 { throw Errno(errno) }
            return count
        },
        fsync: { fd throws(Errno) in try check(sys_fsync(fd)) },
        fstat: { fd throws(Errno) in
            var info = stat()
            try check(sys_fstat(fd, &info))
            return FileStatus(info)
        },
        fstatat: { directory, path, followSymlink throws(Errno) in
            var info = stat()
            _ = try withPath(path) {
                Int(sys_fstatat(directory, $0, &info, followSymlink ? 0 : AT_SYMLINK_NOFOLLOW))
            }
            return FileStatus(info)
        },
        fchmod: { fd, mode throws(Errno) in try check(sys_fchmod(fd, mode_t(mode))) },
        fchown: { fd, owner, group throws(Errno) in try check(sys_fchown(fd, uid_t(owner), gid_t(group))) },
        renameat: { fromDirectory, from, toDirectory, to throws(Errno) in
            _ = try withPath(from) { fromPath throws(Errno) in
                try withPath(to) { Int(sys_renameat(fromDirectory, fromPath, toDirectory, $0)) }
            }
        },
        linkat: { fromDirectory, from, toDirectory, to throws(Errno) in
            _ = try withPath(from) { fromPath throws(Errno) in
                try withPath(to) { Int(sys_linkat(fromDirectory, fromPath, toDirectory, $0, 0)) }
            }
        },
        unlinkat: { directory, path, isDirectory throws(Errno) in
            _ = try withPath(path) { Int(sys_unlinkat(directory, $0, isDirectory ? AT_REMOVEDIR : 0)) }
        },
        mkdirat: { directory, path, mode throws(Errno) in
            _ = try withPath(path) { Int(sys_mkdirat(directory, $0, mode_t(mode))) }
        },
        readlinkat: { directory, path throws(Errno) in
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = try withPath(path) { sys_readlinkat(directory, $0, &buffer, buffer.count - 1) }
            return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        },
        symlinkat: { target, directory, path throws(Errno) in
            _ = try withPath(target) { targetPath throws(Errno) in
                try withPath(path) { Int(sys_symlinkat(targetPath, directory, $0)) }
            }
        },
        readDirectory: { fd throws(Errno) in
            let copy = sys_dup(fd)
            if copy < 0 { throw Errno(errno) }
            guard let stream = sys_fdopendir(copy) else {
                let saved = errno
                _ = sys_close(copy)
                throw Errno(saved)
            }
            defer { _ = sys_closedir(stream) }
            // A duplicate shares the offset; start from the beginning every time.
            sys_rewinddir(stream)
            var names: [String] = []
            while true {
                errno = 0
                guard let entry = sys_readdir(stream) else {
                    if errno != 0 { throw Errno(errno) }
                    break
                }
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String? in
                    let bytes = raw.prefix { $0 != 0 }
                    return String(validating: bytes, as: UTF8.self)
                }
                if let name, name != ".", name != ".." { names.append(name) }
            }
            return names
        },
        getxattr: { fd, name throws(Errno) in
            let size = try withPath(name) { ExtendedAttributes.get(fd, $0, nil, 0) }
            var value = [UInt8](repeating: 0, count: size)
            let count = try withPath(name) { pointer in
                value.withUnsafeMutableBytes { ExtendedAttributes.get(fd, pointer, $0.baseAddress, $0.count) }
            }
            return Array(value.prefix(count))
        },
        setxattr: { fd, name, value throws(Errno) in
            _ = try withPath(name) { pointer in
                value.withUnsafeBytes { ExtendedAttributes.set(fd, pointer, $0.baseAddress, $0.count) }
            }
        },
        removexattr: { fd, name throws(Errno) in
            _ = try withPath(name) { ExtendedAttributes.remove(fd, $0) }
        },
        flock: { fd, operation throws(Errno) in try check(sys_flock(fd, operation)) },
        realpath: { path throws(Errno) in
            guard let resolved = try withPathPointer(path, { sys_realpath($0, nil) }) else { throw Errno(errno) }
            defer { free(resolved) }
            return String(cString: resolved)
        }
    )
}

// MARK: - Helpers for the live table

private let livePread:
    @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, _ offset: Int) throws(Errno)
        -> Int = { fd, buffer, offset throws(Errno) in
            let count = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if count < 0 { throw Errno(errno) }
            return count
        }

private let liveFtruncate: @Sendable (_ fd: Int32, _ length: Int) throws(Errno) -> Void = {
    fd, length throws(Errno) in
    try check(ftruncate(fd, off_t(length)))
}

/// The live `renameExchange`: `renameat2(…, RENAME_EXCHANGE)` looked up at run time,
/// because the C library module does not export it to Swift; `ENOSYS` where it is
/// missing (other C libraries, other systems).
private let liveRenameExchange:
    @Sendable (_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) throws(Errno) -> Void = {
        fromDirectory, from, toDirectory, to throws(Errno) in
        guard let renameat2 = RenameAt2.function else { throw Errno(ENOSYS) }
        _ = try withPath(from) { fromPath throws(Errno) in
            try withPath(to) { Int(renameat2(fromDirectory, fromPath, toDirectory, $0, RenameAt2.exchange)) }
        }
    }

private enum RenameAt2 {
    typealias Function = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    /// `RENAME_EXCHANGE` from `<linux/fs.h>`.
    static let exchange: UInt32 = 1 << 1
    static let function: Function? = {
        #if os(Linux)
        // A null handle is glibc's and musl's RTLD_DEFAULT: search every loaded object.
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
        #else
        return nil
        #endif
    }()
}

/// Calls `body` with a C string, refusing paths with an embedded NUL (which C would
/// silently cut short) and throwing `errno` when `body` returns a negative value.
private func withPath(_ path: String, _ body: (UnsafePointer<CChar>) throws(Errno) -> Int) throws(Errno) -> Int {
    let result = try withPathPointer(path, body)
    if result < 0 { throw Errno(errno) }
    return result
}

private func withPathPointer<T>(_ path: String, _ body: (UnsafePointer<CChar>) throws(Errno) -> T) throws(Errno) -> T {
    if path.utf8.contains(0) { throw Errno(EINVAL) }
    let result: Result<T, Errno> = path.utf8CString.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return .failure(Errno(EINVAL)) }
        return Result { () throws(Errno) in try body(base) }
    }
    return try result.get()
}

private func check(_ result: Int32) throws(Errno) {
    if result < 0 { throw Errno(errno) }
}

extension Int {
    fileprivate var int32: Int32 { Int32(truncatingIfNeeded: self) }
}

extension FileStatus {
    fileprivate init(_ info: stat) {
        let type = UInt32(info.st_mode) & UInt32(S_IFMT)
        switch type {
        case UInt32(S_IFREG): kind = .regular
        case UInt32(S_IFDIR): kind = .directory
        case UInt32(S_IFLNK): kind = .symbolicLink
        default: kind = .other
        }
        permissions = UInt32(info.st_mode) & 0o7777
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modificationTime = Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
        #else
        modificationTime = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        #endif
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        owner = UInt32(info.st_uid)
        group = UInt32(info.st_gid)
    }
}

// File-scope wrappers: inside the table's initializer the bare names would refer to
// the table's own properties.
private func sys_openat(_ directory: Int32, _ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: UInt32) -> Int32 {
    openat(directory, path, flags, mode_t(mode))
}
private func sys_close(_ fd: Int32) -> Int32 { close(fd) }
private func sys_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func sys_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func sys_fsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func sys_fstat(_ fd: Int32, _ info: inout stat) -> Int32 { fstat(fd, &info) }
private func sys_fstatat(_ directory: Int32, _ path: UnsafePointer<CChar>, _ info: inout stat, _ flags: Int32) -> Int32
{
    fstatat(directory, path, &info, flags)
}
private func sys_fchmod(_ fd: Int32, _ mode: mode_t) -> Int32 { fchmod(fd, mode) }
private func sys_fchown(_ fd: Int32, _ owner: uid_t, _ group: gid_t) -> Int32 { fchown(fd, owner, group) }
private func sys_renameat(_ a: Int32, _ from: UnsafePointer<CChar>, _ b: Int32, _ to: UnsafePointer<CChar>) -> Int32 {
    renameat(a, from, b, to)
}
private func sys_linkat(
    _ a: Int32, _ from: UnsafePointer<CChar>, _ b: Int32, _ to: UnsafePointer<CChar>, _ flags: Int32
) -> Int32 {
    linkat(a, from, b, to, flags)
}
private func sys_unlinkat(_ directory: Int32, _ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
    unlinkat(directory, path, flags)
}
private func sys_mkdirat(_ directory: Int32, _ path: UnsafePointer<CChar>, _ mode: mode_t) -> Int32 {
    mkdirat(directory, path, mode)
}
private func sys_readlinkat(
    _ directory: Int32, _ path: UnsafePointer<CChar>, _ buffer: UnsafeMutablePointer<CChar>, _ size: Int
) -> Int {
    readlinkat(directory, path, buffer, size)
}
private func sys_symlinkat(_ target: UnsafePointer<CChar>, _ directory: Int32, _ path: UnsafePointer<CChar>) -> Int32 {
    symlinkat(target, directory, path)
}
private func sys_dup(_ fd: Int32) -> Int32 { dup(fd) }
#if canImport(Darwin)
private typealias DirectoryStream = UnsafeMutablePointer<DIR>
#else
private typealias DirectoryStream = OpaquePointer
#endif
private func sys_fdopendir(_ fd: Int32) -> DirectoryStream? { fdopendir(fd) }
private func sys_closedir(_ stream: DirectoryStream) -> Int32 { closedir(stream) }
private func sys_rewinddir(_ stream: DirectoryStream) { rewinddir(stream) }
private func sys_readdir(_ stream: DirectoryStream) -> UnsafeMutablePointer<dirent>? { readdir(stream) }
private func sys_flock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }
private func sys_realpath(_ path: UnsafePointer<CChar>, _ resolved: UnsafeMutablePointer<CChar>?)
    -> UnsafeMutablePointer<CChar>?
{
    realpath(path, resolved)
}
