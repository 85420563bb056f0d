public import Foundation

extension AppContainer {
    /// The container's directory for an Apple search-path directory, shaped like
    /// `FileManager.urls(for:in:)` so code from the books ports by replacing
    /// `FileManager.default` with a container. Answers `.documentDirectory`,
    /// `.libraryDirectory`, `.cachesDirectory` and `.applicationSupportDirectory` (in
    /// any domain) with one URL, and other directories, which an iOS container does not
    /// have either, with `[]`. The directory is created if missing, because on Apple
    /// platforms it always exists.
    public func urls(for directory: FileManager.SearchPathDirectory, in domain: FileManager.SearchPathDomainMask)
        -> [URL]
    {
        guard let kind = Self.directory(for: directory) else { return [] }
        try? self.directory(kind).create()
        return [url(for: kind)]
    }

    /// The container's directory for an Apple search-path directory, created first
    /// when `shouldCreate` is true. Corresponds to
    /// `FileManager.url(for:in:appropriateFor:create:)`.
    ///
    /// `.itemReplacementDirectory` is a new, empty folder in the container's `tmp/`
    /// for building a replacement of `url` (always created, as Apple's is); remove it
    /// when done. Other directories are those of ``urls(for:in:)``.
    ///
    /// ```swift
    /// let docs = try container.url(for: .documentDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
    /// ```
    /// - Throws: ``SandboxError``: `.unsupported` for a directory the container does
    ///   not have; what creating the folder meets (`.noSpace`, `.outsideContainer`…).
    public func url(
        for directory: FileManager.SearchPathDirectory, in domain: FileManager.SearchPathDomainMask,
        appropriateFor url: URL?, create shouldCreate: Bool
    ) throws(SandboxError) -> URL {
        if directory == .itemReplacementDirectory { return try makeReplacementFolder() }
        guard let kind = Self.directory(for: directory) else {
            throw SandboxError(.unsupported, "an app container has no \(directory) directory", path: self.url.path)
        }
        if shouldCreate { try self.directory(kind).create() }
        return self.url(for: kind)
    }

    private static func directory(for searchPath: FileManager.SearchPathDirectory) -> Directory? {
        switch searchPath {
        case .documentDirectory: .documents
        case .libraryDirectory: .library
        case .cachesDirectory: .caches
        case .applicationSupportDirectory: .applicationSupport
        default: nil
        }
    }

    /// A new folder `(A Document Being Saved By <identifier>)` in `tmp/`, numbered when
    /// the name is taken, as Apple names item-replacement folders.
    private func makeReplacementFolder() throws(SandboxError) -> URL {
        let temporary = self.directory(.temporary)
        try temporary.create()
        let base = "(A Document Being Saved By \(identifier))"
        for attempt in 1...1_000 {
            let name = attempt == 1 ? base : "\(base) \(attempt)"
            do {
                try temporary.createDirectory(name, withIntermediateDirectories: false)
                return temporary.url.appendingPathComponent(name, isDirectory: true)
            } catch .fileExists {
                continue
            }
        }
        throw SandboxError(.fileExists, "every replacement folder name is taken", path: temporary.url.path)
    }
}
