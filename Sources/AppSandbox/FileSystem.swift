public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File operations on absolute URLs, with durable atomic writes.
///
/// Corresponds to `FileManager` plus `Data.write(to:options: .atomic)` and
/// `String.write(to:atomically:encoding:)`. Unlike Foundation on Linux it keeps the
/// replaced file's permission bits and syncs the directory after the rename (see
/// `DurableWriter` for the exact steps). Nothing here checks containment: use
/// ``SandboxDirectory`` for paths built from keys or names.
///
/// ```swift
/// let file = URL(fileURLWithPath: "/var/lib/app/state.bin")
/// try FileSystem.default.write(Data([1, 2, 3]), to: file)
/// let back = try FileSystem.default.contents(of: file)
/// ```
///
/// Writing to a symbolic link follows it: the file the link points to is replaced
/// and the link stays a link, as `Data.write(to:options: .atomic)` does on Apple
/// platforms.
public struct FileSystem: Sendable {
    public static let `default` = FileSystem()

    let engine: FileEngine
    var system: SystemCalls { engine.system }

    public init() { self.init(system: .live) }

    package init(system: SystemCalls) { engine = FileEngine(system: system) }

    // MARK: Files

    /// Replaces the file at `url` with `data`, durably and atomically.
    /// - Throws: ``SandboxError``; the previous file is then left as it was.
    public func write(_ data: Data, to url: URL) throws(SandboxError) {
        let location = try locate(url, followFinalLink: true)
        defer { location.release(system) }
        try engine.write(data, to: location)
    }

    /// Replaces the file at `url` with `string` in `encoding`, durably and atomically.
    /// Corresponds to `String.write(to:atomically: true, encoding:)`.
    /// - Throws: ``SandboxError`` `.invalidEncoding` when the text cannot be encoded.
    public func write(_ string: String, to url: URL, encoding: String.Encoding = .utf8) throws(SandboxError) {
        try write(try Self.encode(string, encoding, path: url.path), to: url)
    }

    /// The whole content of the file at `url`. Corresponds to `Data(contentsOf:)`.
    public func contents(of url: URL) throws(SandboxError) -> Data {
        let location = try locate(url, followFinalLink: true)
        defer { location.release(system) }
        return try engine.read(location)
    }

    /// The regular file at `url`, open to read pieces of it at any offset; see
    /// ``RandomAccessFile``. Corresponds to `FileHandle(forReadingFrom:)`.
    /// - Throws: ``SandboxError``; `EISDIR` for a directory, `.notRegularFile` for a
    ///   FIFO, device or socket.
    public func openForReading(_ url: URL) throws(SandboxError) -> RandomAccessFile {
        let location = try locate(url, followFinalLink: true)
        defer { location.release(system) }
        return try engine.openForReading(location)
    }

    /// The file at `url` decoded as `encoding`. Corresponds to
    /// `String(contentsOf:encoding:)`.
    public func string(contentsOf url: URL, encoding: String.Encoding = .utf8) throws(SandboxError) -> String {
        try Self.decode(try contents(of: url), encoding, path: url.path)
    }

    /// Whether anything exists at `url` (links are followed).
    public func fileExists(at url: URL) -> Bool {
        guard let location = try? locate(url, followFinalLink: true) else { return false }
        defer { location.release(system) }
        return (try? engine.exists(location)) ?? false
    }

    // MARK: Directories

    /// Creates a directory, and with `withIntermediateDirectories` its missing
    /// parents (then an existing directory is not an error).
    public func createDirectory(at url: URL, withIntermediateDirectories: Bool = true) throws(SandboxError) {
        let location: Location
        do {
            location = try locate(url, followFinalLink: false)
        } catch .noSuchFile where withIntermediateDirectories {
            try createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            location = try locate(url, followFinalLink: false)
        }
        defer { location.release(system) }
        try engine.createDirectory(location, intermediates: withIntermediateDirectories)
    }

    /// Names in the directory at `url`, sorted. Corresponds to
    /// `FileManager.contentsOfDirectory(atPath:)`.
    public func contentsOfDirectory(at url: URL) throws(SandboxError) -> [String] {
        let directory = try openDirectory(url)
        defer { directory.close(system) }
        return try engine.names(in: directory)
    }

    /// Everything below `url`, depth first, without entering directories for which
    /// `skipDescendants` returns true. Corresponds to `FileManager.enumerator(at:…)`
    /// with `skipDescendants()`.
    public func enumerate(
        at url: URL, skippingDescendantsOf skipDescendants: (DirectoryEntry) -> Bool = { _ in false }
    ) throws(SandboxError) -> [DirectoryEntry] {
        let directory = try openDirectory(url)
        defer { directory.close(system) }
        var entries: [DirectoryEntry] = []
        try engine.enumerate(directory, skipDescendants: skipDescendants, into: &entries)
        return entries
    }

    // MARK: Remove, move, copy

    /// Removes a file, a link (not its target) or a directory tree.
    public func removeItem(at url: URL) throws(SandboxError) {
        let location = try locate(url, followFinalLink: false)
        defer { location.release(system) }
        try engine.remove(location)
    }

    /// Moves an item; the destination must not exist.
    public func moveItem(at source: URL, to destination: URL) throws(SandboxError) {
        try withItems(source, destination) { (from, to) throws(SandboxError) in try engine.move(from, to: to) }
    }

    /// Copies a file, link or directory tree; the destination must not exist.
    public func copyItem(at source: URL, to destination: URL) throws(SandboxError) {
        try withItems(source, destination) { (from, to) throws(SandboxError) in try engine.copy(from, to: to) }
    }

    /// `body` on the items at two URLs, final links not followed, released after.
    private func withItems(
        _ first: URL, _ second: URL, _ body: (Location, Location) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        let one = try locate(first, followFinalLink: false)
        defer { one.release(system) }
        let other = try locate(second, followFinalLink: false)
        defer { other.release(system) }
        try body(one, other)
    }

    // MARK: Locating

    /// Opens the parent of `url` (the kernel follows links there: this API has no
    /// containment to protect) and, with `followFinalLink`, follows links in the last
    /// place ourselves, so that a write replaces the file a link points to.
    func locate(_ url: URL, followFinalLink: Bool) throws(SandboxError) -> Location {
        var path = url.path
        for _ in 0...ContainedResolver.maxSymbolicLinks {
            while path.count > 1, path.hasSuffix("/") { path.removeLast() }
            guard let slash = path.lastIndex(of: "/") else {
                throw SandboxError(.invalidName, "not an absolute path", path: path)
            }
            let parentPath = slash == path.startIndex ? "/" : String(path[..<slash])
            let name = String(path[path.index(after: slash)...])
            if name.isEmpty || name == "." || name == ".." {
                throw SandboxError(.invalidName, "no file name", path: path)
            }
            let parent = try system.open(
                AT_FDCWD, parentPath, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: parentPath
            )
            if followFinalLink, (try? system.fstatat(parent, name, false))?.kind == .symbolicLink {
                let target = try? system.readlinkat(parent, name)
                try? system.close(parent)
                guard let target else { throw SandboxError(errno: EINVAL, path: path, operation: "read link") }
                path = target.hasPrefix("/") ? target : parentPath + "/" + target
                continue
            }
            return Location(parent: parent, name: name, path: path, ownedDescriptors: [parent])
        }
        throw SandboxError(errno: ELOOP, path: url.path, operation: "resolve")
    }

    private func openDirectory(_ url: URL) throws(SandboxError) -> DirectoryHandle {
        let fd = try system.open(AT_FDCWD, url.path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: url.path)
        return DirectoryHandle(fd: fd, path: url.path, components: [])
    }

    // MARK: Text

    static func encode(_ string: String, _ encoding: String.Encoding, path: String) throws(SandboxError) -> Data {
        guard let data = string.data(using: encoding, allowLossyConversion: false) else {
            throw SandboxError(.invalidEncoding, "text cannot be represented in \(encoding)", path: path)
        }
        return data
    }

    static func decode(_ data: Data, _ encoding: String.Encoding, path: String) throws(SandboxError) -> String {
        guard let string = String(data: data, encoding: encoding) else {
            throw SandboxError(.invalidEncoding, "content is not valid \(encoding)", path: path)
        }
        return string
    }
}
