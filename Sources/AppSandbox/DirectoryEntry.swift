public import Foundation

/// One item found by listing a directory: its path relative to the listed folder and
/// the attributes `FileManager` would report through `URLResourceValues`
/// (`isDirectory`, `fileSize`, `contentModificationDate`).
public struct DirectoryEntry: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case file, directory, symbolicLink, other
    }

    /// Path relative to the folder that was listed, `/`-separated.
    public var relativePath: String
    public var kind: Kind
    /// Size in bytes (of the link itself for a symbolic link).
    public var size: Int64
    public var modificationDate: Date

    /// The last component of ``relativePath``.
    public var name: String {
        relativePath.split(separator: "/").last.map(String.init) ?? relativePath
    }

    public init(relativePath: String, kind: Kind, size: Int64, modificationDate: Date) {
        self.relativePath = relativePath
        self.kind = kind
        self.size = size
        self.modificationDate = modificationDate
    }

    init(relativePath: String, status: FileStatus) {
        let kind: Kind =
            switch status.kind {
            case .regular: .file
            case .directory: .directory
            case .symbolicLink: .symbolicLink
            case .other: .other
            }
        self.init(
            relativePath: relativePath, kind: kind, size: status.size,
            modificationDate: Date(timeIntervalSince1970: status.modificationTime)
        )
    }
}
