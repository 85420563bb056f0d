import Foundation

/// One item named relative to an open directory: the unit every file operation in
/// `FileEngine` works on. Working from a directory descriptor (`openat`, `renameat`,
/// ...) rather than a path string means a component swapped for a symbolic link after
/// it was checked cannot redirect the operation.
struct Location {
    /// The directory holding the item. Stays open until ``release(_:)``.
    var parent: Int32
    /// The item's name in `parent`; never empty, never contains `/`.
    var name: String
    /// The item's path, for error messages only.
    var path: String
    /// The item's path relative to the root it was resolved from, links resolved.
    var components: [String] = []
    /// Descriptors opened on the way here, `parent` among them when it was opened for
    /// this location (it is not when it is a caller's directory).
    var ownedDescriptors: [Int32] = []

    func release(_ system: SystemCalls) {
        for fd in ownedDescriptors.reversed() { try? system.close(fd) }
    }
}

/// An open directory and the path it was opened by.
struct DirectoryHandle {
    var fd: Int32
    var path: String
    /// The relative path from the root the handle was resolved from.
    var components: [String]

    func close(_ system: SystemCalls) { try? system.close(fd) }
}

extension SystemCalls {
    /// `openat` retried on `EINTR` (nothing was opened), mapping failure to a
    /// ``SandboxError`` for `path`.
    func open(_ directory: Int32, _ name: String, flags: Int32, mode: UInt32 = 0, path: String) throws(SandboxError)
        -> Int32
    {
        try retryingInterrupts("open", path) { () throws(Errno) in try openat(directory, name, flags, mode) }
    }

    /// `renameat` retried on `EINTR` (nothing was renamed), mapping failure to a
    /// ``SandboxError`` for `path`.
    func rename(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String, path: String)
        throws(SandboxError)
    {
        try retryingInterrupts("rename", path) { () throws(Errno) in
            try renameat(fromDirectory, from, toDirectory, to)
        }
    }

    /// Runs one call again for as long as it fails with `EINTR`, which did nothing, and
    /// maps any other failure for `path`.
    func retryingInterrupts<T>(_ operation: String, _ path: String, _ body: () throws(Errno) -> T)
        throws(SandboxError) -> T
    {
        while true {
            do {
                return try body()
            } catch  where error.rawValue == EINTR {
                continue
            } catch {
                throw SandboxError(errno: error.rawValue, path: path, operation: operation)
            }
        }
    }

    /// Runs one call and maps its failure for `path`.
    func checked<T>(_ operation: String, _ path: String, _ body: () throws(Errno) -> T) throws(SandboxError) -> T {
        do {
            return try body()
        } catch {
            throw SandboxError(errno: error.rawValue, path: path, operation: operation)
        }
    }
}
