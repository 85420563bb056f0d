public import Foundation

/// What a backup of a container holds, by the iOS rules: `Documents/` and `Library/`
/// (with `Preferences/` and `Application Support/`) are backed up; `Library/Caches/`,
/// `tmp/` and every item marked excluded (a folder: with its content) are not.
///
/// Symbolic links, devices, sockets and pipes are left out: a backup carries data,
/// and a restored link could point anywhere. So are this layer's own in-flight
/// temporary files.
///
/// Corresponds to what iCloud and iTunes backups take from an app's container.
///
/// ```swift
/// let plan = try BackupPlan(container: container)
/// for item in plan.items { print(item.path, item.size) }
/// ```
public struct BackupPlan: Sendable {
    /// One file or folder the backup includes.
    public struct Item: Sendable, Hashable {
        /// Path from the container root, like `Documents/items.archive`.
        public var path: String
        /// `.file` or `.directory`.
        public var kind: DirectoryEntry.Kind
        /// Size in bytes; 0 for a folder.
        public var size: Int64
        public var modificationDate: Date
    }

    /// The container directories a backup takes, each with its content.
    public static let includedDirectories: [AppContainer.Directory] = [.documents, .library]
    /// Directories inside the included ones that a backup skips.
    public static let skippedDirectories: [AppContainer.Directory] = [.caches]

    /// Files and folders in depth-first order, folders before their content.
    public var items: [Item]

    /// Total size of the files.
    public var totalBytes: Int64 { items.reduce(0) { $0 &+ $1.size } }

    /// Plans a backup of `container` as it is now.
    /// - Throws: ``SandboxError`` when a directory cannot be read.
    public init(container: AppContainer) throws(SandboxError) {
        let exclusions = BackupExclusions(container: container)
        let list = try exclusions.readList()
        let skipped = Set(Self.skippedDirectories.map { $0.pathComponents.joined(separator: "/") })
        let engine = FileEngine(system: container.system)
        var items: [Item] = []
        for kind in Self.includedDirectories {
            try container.directory(kind).withResolver { resolver throws(SandboxError) in
                let root = DirectoryHandle(fd: resolver.root, path: resolver.rootPath, components: [])
                let prefix = kind.pathComponents.joined(separator: "/") + "/"
                try Self.walk(root, prefix: prefix, engine, exclusions, list, skipped, into: &items)
            }
        }
        self.items = items
    }

    private static func walk(
        _ directory: DirectoryHandle, prefix: String, _ engine: FileEngine, _ exclusions: BackupExclusions,
        _ list: Set<String>, _ skipped: Set<String>, into items: inout [Item]
    ) throws(SandboxError) {
        for name in try engine.names(in: directory) {
            let key = prefix + name
            if skipped.contains(key) { continue }
            let location = Location(parent: directory.fd, name: name, path: directory.path + "/" + name)
            let status = try engine.status(location)
            guard status.kind == .regular || status.kind == .directory else { continue }
            if try exclusions.isExcluded(at: location, key: key, list: list) { continue }
            let date = Date(timeIntervalSince1970: status.modificationTime)
            if status.kind == .regular {
                items.append(Item(path: key, kind: .file, size: status.size, modificationDate: date))
                continue
            }
            items.append(Item(path: key, kind: .directory, size: 0, modificationDate: date))
            let child = try engine.openDirectory(location)
            defer { child.close(engine.system) }
            try walk(child, prefix: key + "/", engine, exclusions, list, skipped, into: &items)
        }
    }
}
