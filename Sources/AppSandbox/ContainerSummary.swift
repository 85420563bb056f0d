public import Foundation

/// The directories of a container with how many files each holds and their size,
/// for `keepsake sandbox show`. `Library` counts everything below it, its
/// `Caches`, `Preferences` and `Application Support` included.
///
/// ```swift
/// for row in try ContainerSummary(container: container).rows {
///     print(row.directory, row.fileCount, row.byteCount)
/// }
/// ```
public struct ContainerSummary: Sendable {
    public struct Row: Sendable, Hashable {
        public var directory: AppContainer.Directory
        public var url: URL
        public var fileCount: Int
        public var byteCount: Int64
    }

    public var container: AppContainer
    /// One row per ``AppContainer/Directory``, in declaration order.
    public var rows: [Row]

    /// Measures `container`, creating missing directories (they are empty then).
    public init(container: AppContainer) throws(SandboxError) {
        self.container = container
        rows = []
        for kind in AppContainer.Directory.allCases {
            let files = try container.directory(kind).enumerate().filter { $0.kind == .file }
            rows.append(
                Row(
                    directory: kind, url: container.url(for: kind),
                    fileCount: files.count, byteCount: files.reduce(0) { $0 &+ $1.size }
                ))
        }
    }
}
