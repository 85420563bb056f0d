public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File operations confined to one directory of an ``AppContainer``.
///
/// Every method takes a key, name or `/`-separated relative path and refuses, before
/// touching anything, what would land outside this directory: `..`, absolute paths,
/// NUL bytes, names over 255 bytes, look-alikes of `/`, and symbolic links whose
/// target leads out (links that stay inside are followed). Writes are durable and
/// atomic, as `FileSystem.write(_:to:)` describes; writing to a link that
/// stays inside replaces the file it points to.
///
/// Corresponds to the `FileManager` and `Data.write(to:options:)` calls an iOS app
/// makes on URLs inside its container.
///
/// ```swift
/// let documents = container.directory(.documents)
/// try documents.createDirectory("notes")
/// try documents.write(Data("hello".utf8), to: "notes/today.txt")
/// let text = try documents.string(contentsOf: "notes/today.txt")
/// try documents.write(Data(), to: "../escape")   // throws .outsideContainer
/// ```
public struct SandboxDirectory: Sendable {
    public let container: AppContainer
    public let kind: AppContainer.Directory

    var system: SystemCalls { container.system }
    var engine: FileEngine { FileEngine(system: container.system) }

    /// The directory's URL.
    public var url: URL { container.url(for: kind) }

    /// Creates the directory (and the container) if missing.
    public func create() throws(SandboxError) {
        try withResolver { _ throws(SandboxError) in }
    }

    /// The URL `relativePath` names, after the containment checks; for handing to
    /// APIs that take URLs. Links along the path are resolved.
    public func url(for relativePath: String) throws(SandboxError) -> URL {
        let components = try RelativePath.components(of: relativePath)
        let resolved = try withResolver { resolver throws(SandboxError) -> [String] in
            do throws(SandboxError) {
                let location = try resolver.item(components, followFinalLink: true)
                location.release(system)
                return location.components
            } catch .noSuchFile {
                // A missing folder on the way cannot be a link; the name is safe as written.
                return components
            }
        }
        return resolved.reduce(url) { $0.appendingPathComponent($1) }
    }

    // MARK: Files

    /// Replaces (or creates) the file at `relativePath`, durably and atomically. The
    /// folder it goes in must exist. Corresponds to `Data.write(to:options: .atomic)`.
    /// - Throws: ``SandboxError``; the previous file is then left as it was.
    public func write(_ data: Data, to relativePath: String) throws(SandboxError) {
        try withItem(relativePath, followFinalLink: true) { location throws(SandboxError) in
            try engine.write(data, to: location)
        }
    }

    /// Replaces (or creates) the file at `relativePath` atomically but without `fsync`:
    /// readers see the old content or the new, and a crash may leave either, or an
    /// empty file. For a store whose journal already holds `data` durably and writes
    /// it again at start-up.
    package func writeUnsynchronized(_ data: Data, to relativePath: String) throws(SandboxError) {
        try withItem(relativePath, followFinalLink: true) { location throws(SandboxError) in
            try engine.write(data, to: location, synchronized: false)
        }
    }

    /// Replaces the file at `relativePath` with `string` in `encoding`.
    /// Corresponds to `String.write(to:atomically: true, encoding:)`.
    public func write(_ string: String, to relativePath: String, encoding: String.Encoding = .utf8) throws(SandboxError)
    {
        try write(try FileSystem.encode(string, encoding, path: relativePath), to: relativePath)
    }

    /// The content of the file at `relativePath`. Corresponds to `Data(contentsOf:)`.
    public func contents(of relativePath: String) throws(SandboxError) -> Data {
        try withItem(relativePath, followFinalLink: true) { location throws(SandboxError) in
            try engine.read(location)
        }
    }

    /// The file at `relativePath` decoded as `encoding`.
    public func string(contentsOf relativePath: String, encoding: String.Encoding = .utf8) throws(SandboxError)
        -> String
    {
        try FileSystem.decode(try contents(of: relativePath), encoding, path: relativePath)
    }

    /// Whether an item exists at `relativePath` (a path that breaks a containment
    /// rule exists for no one).
    public func fileExists(_ relativePath: String) -> Bool {
        (try? withItem(relativePath, followFinalLink: true) { location throws(SandboxError) in
            try engine.exists(location)
        }) ?? false
    }

    /// Kind, size and modification date of the item at `relativePath` (a link is
    /// described, not followed). Corresponds to `FileManager.attributesOfItem(atPath:)`.
    public func attributesOfItem(_ relativePath: String) throws(SandboxError) -> DirectoryEntry {
        try withItem(relativePath, followFinalLink: false) { location throws(SandboxError) in
            DirectoryEntry(relativePath: relativePath, status: try engine.status(location))
        }
    }

    // MARK: Folders

    /// Creates a folder; with `withIntermediateDirectories` also its missing parents,
    /// and an existing folder is then not an error.
    public func createDirectory(_ relativePath: String, withIntermediateDirectories: Bool = true) throws(SandboxError) {
        let components = try RelativePath.components(of: relativePath)
        try withResolver { resolver throws(SandboxError) in
            let location = try resolver.item(
                components, followFinalLink: withIntermediateDirectories,
                createIntermediates: withIntermediateDirectories
            )
            defer { location.release(system) }
            try engine.createDirectory(location, intermediates: withIntermediateDirectories)
        }
    }

    /// Names in the folder at `relativePath` (this directory when nil), sorted.
    /// Corresponds to `FileManager.contentsOfDirectory(atPath:)`.
    public func contentsOfDirectory(_ relativePath: String? = nil) throws(SandboxError) -> [String] {
        try withFolder(relativePath) { handle throws(SandboxError) in try engine.names(in: handle) }
    }

    /// The sandbox's own names (the `.keepsake-` prefix: locks, journals, markers) in
    /// this directory, sorted: for a store that keeps its journals there. A missing
    /// directory is `.noSuchFile`, and is not created.
    package func internalNames() throws(SandboxError) -> [String] {
        try withExistingResolver { resolver throws(SandboxError) in
            let handle = DirectoryHandle(fd: resolver.root, path: resolver.rootPath, components: [])
            return try engine.names(in: handle, includingInternal: true).filter(RelativePath.isInternal)
        }
    }

    /// Everything below the folder at `relativePath` (this directory when nil), depth
    /// first; directories for which `skipDescendants` returns true are listed but not
    /// entered. Links are listed, never followed. Corresponds to
    /// `FileManager.enumerator(at:…)` and `skipDescendants()`.
    public func enumerate(
        _ relativePath: String? = nil, skippingDescendantsOf skipDescendants: (DirectoryEntry) -> Bool = { _ in false }
    ) throws(SandboxError) -> [DirectoryEntry] {
        try withFolder(relativePath) { handle throws(SandboxError) in
            var entries: [DirectoryEntry] = []
            try engine.enumerate(handle, skipDescendants: skipDescendants, into: &entries)
            return entries
        }
    }

    /// `fsync`s the folder at `relativePath` (this directory when nil), so that the
    /// names created, replaced and removed in it so far survive a crash.
    /// - Throws: ``SandboxError`` `.ioError` when the `fsync` fails.
    package func synchronizeFolder(_ relativePath: String? = nil) throws(SandboxError) {
        try withFolder(relativePath) { handle throws(SandboxError) in try engine.sync(handle.fd, path: handle.path) }
    }

    // MARK: Remove, move, copy

    /// Removes a file, a link (not its target) or a folder with its content.
    public func removeItem(_ relativePath: String) throws(SandboxError) {
        try withItem(relativePath, followFinalLink: false) { location throws(SandboxError) in
            try engine.remove(location)
        }
    }

    /// Moves an item to `destination` in `directory` (this one when nil); the
    /// destination must not exist.
    public func moveItem(_ relativePath: String, to destination: String, in directory: SandboxDirectory? = nil)
        throws(SandboxError)
    {
        try withItem(relativePath, followFinalLink: false) { source throws(SandboxError) in
            try (directory ?? self).withItem(destination, followFinalLink: false) { target throws(SandboxError) in
                try engine.move(source, to: target)
            }
        }
    }

    /// Copies a file, link or folder tree to `destination` in `directory` (this one
    /// when nil); the destination must not exist.
    public func copyItem(_ relativePath: String, to destination: String, in directory: SandboxDirectory? = nil)
        throws(SandboxError)
    {
        try withItem(relativePath, followFinalLink: false) { source throws(SandboxError) in
            try (directory ?? self).withItem(destination, followFinalLink: false) { target throws(SandboxError) in
                try engine.copy(source, to: target)
            }
        }
    }

    // MARK: Plumbing

    /// Opens this directory (creating it and the container on first use) and hands
    /// a resolver confined to it to `body`.
    func withResolver<T>(_ body: (ContainedResolver) throws(SandboxError) -> T) throws(SandboxError) -> T {
        let rootPath = container.url.path
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
        let rootFD: Int32
        do {
            rootFD = try system.open(AT_FDCWD, rootPath, flags: flags, path: rootPath)
        } catch .noSuchFile {
            try FileSystem(system: system).createDirectory(at: container.url, withIntermediateDirectories: true)
            rootFD = try system.open(AT_FDCWD, rootPath, flags: flags, path: rootPath)
        }
        defer { try? system.close(rootFD) }
        let directory = try ContainedResolver(system: system, root: rootFD, rootPath: rootPath)
            .directory(kind.pathComponents, create: true)
        defer { directory.close(system) }
        return try body(ContainedResolver(system: system, root: directory.fd, rootPath: directory.path))
    }

    func withItem<T>(
        _ relativePath: String, followFinalLink: Bool, _ body: (Location) throws(SandboxError) -> T
    ) throws(SandboxError) -> T {
        let components = try RelativePath.components(of: relativePath)
        return try withResolver { resolver throws(SandboxError) in
            let location = try resolver.item(components, followFinalLink: followFinalLink)
            defer { location.release(system) }
            return try body(location)
        }
    }

    func withFolder<T>(_ relativePath: String?, _ body: (DirectoryHandle) throws(SandboxError) -> T)
        throws(SandboxError) -> T
    {
        let components =
            try relativePath.map { (path: String) throws(SandboxError) in try RelativePath.components(of: path) } ?? []
        return try withResolver { resolver throws(SandboxError) in
            let handle = try resolver.directory(components)
            defer { handle.close(system) }
            return try body(handle)
        }
    }
}
