import Foundation

/// Where the "excluded from backup" mark is kept.
///
/// First choice: an extended attribute on the item itself, so the mark follows the
/// item through renames. File systems without user extended attributes (`ENOTSUP`:
/// some tmpfs and network mounts, FAT) get a fallback: a list of container-relative
/// paths in `Library/.keepsake-backup-exclusions`, NUL-separated because a path can
/// hold any other byte. A mark in the list stays with the path, not the item.
/// An item is excluded when either place says so.
struct BackupExclusions {
    /// The `errno` for "no such attribute": `ENOATTR` on Apple systems.
    #if canImport(Darwin)
    static let noAttribute = ENOATTR
    #else
    static let noAttribute = ENODATA
    #endif
    static let attributeName = "user.keepsake.excludedFromBackup"
    static let listName = RelativePath.internalPrefix + "backup-exclusions"

    let container: AppContainer
    var system: SystemCalls { container.system }

    /// Sets or clears the mark on the item at `location`, known to the fallback list
    /// by `key` (its path from the container root).
    func set(_ excluded: Bool, at location: Location, key: String) throws(SandboxError) {
        let fd = try openItem(location)
        defer { try? system.close(fd) }
        var needsList = false
        do {
            if excluded {
                try system.setxattr(fd, Self.attributeName, Array("1".utf8))
            } else {
                try system.removexattr(fd, Self.attributeName)
            }
        } catch  where error.rawValue == ENOTSUP || error.rawValue == EOPNOTSUPP {
            needsList = true
        } catch  where !excluded && error.rawValue == Self.noAttribute {
            // Not marked by attribute; the list may still hold it.
        } catch {
            throw SandboxError(errno: error.rawValue, path: location.path, operation: "set extended attribute")
        }
        var list = try readList()
        if excluded && needsList {
            list.insert(key)
        } else if !excluded && list.contains(key) {
            list.remove(key)
        } else {
            return
        }
        try writeList(list)
    }

    /// Whether the item at `location` carries the mark, given the fallback list.
    func isExcluded(at location: Location, key: String, list: Set<String>) throws(SandboxError) -> Bool {
        if list.contains(key) { return true }
        let fd = try openItem(location)
        defer { try? system.close(fd) }
        do {
            return try system.getxattr(fd, Self.attributeName) == Array("1".utf8)
        } catch  where error.rawValue == Self.noAttribute || error.rawValue == ENOTSUP || error.rawValue == EOPNOTSUPP {
            return false
        } catch {
            throw SandboxError(errno: error.rawValue, path: location.path, operation: "read extended attribute")
        }
    }

    /// The fallback list; empty when it does not exist.
    func readList() throws(SandboxError) -> Set<String> {
        let data: Data
        do {
            data = try container.directory(.library).contents(of: Self.listName)
        } catch .noSuchFile {
            return []
        }
        return Set(data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
    }

    private func writeList(_ list: Set<String>) throws(SandboxError) {
        var data = Data()
        for key in list.sorted() {
            data.append(contentsOf: key.utf8)
            data.append(0)
        }
        try container.directory(.library).write(data, to: Self.listName)
    }

    /// Extended attributes need a descriptor to a file or directory. `O_NONBLOCK` so
    /// that a FIFO in the tree cannot stall us; links were resolved before.
    private func openItem(_ location: Location) throws(SandboxError) -> Int32 {
        try system.open(
            location.parent, location.name, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, path: location.path)
    }
}
