public import Foundation

/// Read-only resources shipped with the program: a folder of files, or the resource
/// folder of a SwiftPM `Bundle.module`.
///
/// Corresponds to `Bundle.main.url(forResource:withExtension:)`. Names are looked up
/// with the same containment rules as ``SandboxDirectory`` (no `..`, no absolute
/// paths, no links leading out), a missing resource is `nil`, and nothing here
/// writes.
///
/// ```swift
/// let resources = ResourceBundle(url: URL(fileURLWithPath: "/usr/share/homepwner"))
/// if let data = resources.data(forResource: "sample-items", withExtension: "plist") { … }
/// ```
public struct ResourceBundle: Sendable {
    /// The folder the resources are in.
    public let url: URL

    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    /// The resources of a `Bundle` (SwiftPM's `Bundle.module`, for instance); nil
    /// when it has no resource folder.
    public init?(bundle: Bundle) {
        guard let resourceURL = bundle.resourceURL else { return nil }
        self.init(url: resourceURL)
    }

    /// The URL of the resource `name.ext` (in `subdirectory` when given), or nil when
    /// there is no such file or the name is not a plain relative one. With a nil
    /// `name`, the first file (by name) with extension `ext`.
    public func url(forResource name: String?, withExtension ext: String?, subdirectory: String? = nil) -> URL? {
        guard let name else {
            return urls(forResourcesWithExtension: ext, subdirectory: subdirectory).first
        }
        let fileName = ext.map { $0.isEmpty ? name : "\(name).\($0)" } ?? name
        let relative = subdirectory.map { "\($0)/\(fileName)" } ?? fileName
        return try? locate(relative)
    }

    /// The URLs of all files with extension `ext` (all files when nil), sorted by name.
    /// Corresponds to `Bundle.urls(forResourcesWithExtension:subdirectory:)`.
    public func urls(forResourcesWithExtension ext: String?, subdirectory: String? = nil) -> [URL] {
        guard
            let names = try? withFolder(
                subdirectory,
                { directory throws(SandboxError) in
                    try directory.engine.names(in: directory.handle)
                })
        else { return [] }
        return
            names
            .filter { ext == nil || URL(fileURLWithPath: $0).pathExtension == ext }
            .compactMap { name in try? locate(subdirectory.map { "\($0)/\(name)" } ?? name) }
    }

    /// The content of resource `name.ext`, or nil when there is none.
    public func data(forResource name: String, withExtension ext: String?, subdirectory: String? = nil) -> Data? {
        guard let url = url(forResource: name, withExtension: ext, subdirectory: subdirectory) else { return nil }
        return try? FileSystem.default.contents(of: url)
    }

    // MARK: Plumbing

    /// The URL of a regular file at `relativePath`, checked for containment.
    private func locate(_ relativePath: String) throws(SandboxError) -> URL {
        let components = try RelativePath.components(of: relativePath)
        let system = SystemCalls.live
        let rootFD = try system.open(AT_FDCWD, url.path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: url.path)
        defer { try? system.close(rootFD) }
        let location = try ContainedResolver(system: system, root: rootFD, rootPath: url.path)
            .item(components, followFinalLink: true)
        defer { location.release(system) }
        guard try FileEngine(system: system).status(location).kind == .regular else {
            throw SandboxError(.isADirectory, "not a file", path: location.path)
        }
        return location.components.reduce(url) { $0.appendingPathComponent($1) }
    }

    private struct Folder {
        var engine: FileEngine
        var handle: DirectoryHandle
    }

    private func withFolder<T>(_ relativePath: String?, _ body: (Folder) throws(SandboxError) -> T) throws(SandboxError)
        -> T
    {
        let system = SystemCalls.live
        let components =
            try relativePath.map { (path: String) throws(SandboxError) in try RelativePath.components(of: path) } ?? []
        let rootFD = try system.open(AT_FDCWD, url.path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: url.path)
        defer { try? system.close(rootFD) }
        let handle = try ContainedResolver(system: system, root: rootFD, rootPath: url.path).directory(components)
        defer { handle.close(system) }
        return try body(Folder(engine: FileEngine(system: system), handle: handle))
    }
}
