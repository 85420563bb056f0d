#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileEngine {
    /// Recreates the tree of `source` in the empty directory `destination` without
    /// copying file content: folders are made anew (with their permission bits and
    /// backup-exclusion mark), files are hard-linked (copied where the file system has
    /// no hard links), symbolic links are copied as links. Devices, sockets, pipes and
    /// other writers' in-flight temporary files are left out. Every folder made is
    /// synced before this returns.
    ///
    /// A restore builds its staging tree this way, so that the files a backup does not
    /// name survive the swap unchanged (same inode, same bytes).
    func mirror(_ source: DirectoryHandle, into destination: DirectoryHandle) throws(SandboxError) {
        for name in try names(in: source, includingInternal: true) {
            if RelativePath.isInternal(name) && (name.hasSuffix(".tmp") || name.hasSuffix(".old")) { continue }
            let from = Location(parent: source.fd, name: name, path: source.path + "/" + name)
            let to = Location(parent: destination.fd, name: name, path: destination.path + "/" + name)
            let info = try status(from)
            switch info.kind {
            case .regular:
                do {
                    try system.linkat(source.fd, name, destination.fd, name)
                } catch  where [EXDEV, EPERM, EMLINK, ENOTSUP, EOPNOTSUPP].contains(error.rawValue) {
                    try copy(from, to: to)
                } catch {
                    throw SandboxError(errno: error.rawValue, path: from.path, operation: "link")
                }
            case .symbolicLink:
                try copy(from, to: to)
            case .directory:
                try system.checked("create directory", to.path) { () throws(Errno) in
                    try system.mkdirat(destination.fd, name, 0o700)
                }
                let child = try openDirectory(from)
                defer { child.close(system) }
                let copy = try openDirectory(to)
                defer { copy.close(system) }
                try system.checked("chmod", to.path) { () throws(Errno) in try system.fchmod(copy.fd, info.permissions)
                }
                try copyExclusionMark(from: child, to: copy)
                try mirror(child, into: copy)
            case .other:
                continue
            }
        }
        try sync(destination.fd, path: destination.path)
    }

    /// Carries the backup-exclusion attribute of a folder over to its copy; file
    /// systems without extended attributes have nothing to carry.
    func copyExclusionMark(from source: DirectoryHandle, to destination: DirectoryHandle) throws(SandboxError) {
        let value: [UInt8]
        do {
            value = try system.getxattr(source.fd, BackupExclusions.attributeName)
        } catch  where [BackupExclusions.noAttribute, ENOTSUP, EOPNOTSUPP].contains(error.rawValue) {
            return
        } catch {
            throw SandboxError(errno: error.rawValue, path: source.path, operation: "read extended attribute")
        }
        try system.checked("set extended attribute", destination.path) { () throws(Errno) in
            try system.setxattr(destination.fd, BackupExclusions.attributeName, value)
        }
    }
}
