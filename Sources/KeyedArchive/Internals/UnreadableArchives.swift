import Locking

/// The archive files the books' one-liner could not read in this process. The books'
/// pattern loads with `unarchiveObject(withFile:)`, starts empty when that gives `nil`,
/// and saves with `archiveRootObject(_:toFile:)` on exit: without this, an archive the
/// port cannot read (a class it does not know, a damaged file) would be replaced by an
/// empty one. The one-liner refuses to replace a file listed here until a load of it
/// succeeds.
enum UnreadableArchives {
    private static let paths = Locked(Set<String>())

    static func insert(_ path: String) { paths.withLock { _ = $0.insert(path) } }

    static func remove(_ path: String) { paths.withLock { _ = $0.remove(path) } }

    static func contains(_ path: String) -> Bool { paths.withLock { $0.contains(path) } }
}
