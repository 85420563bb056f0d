public import Foundation

/// One app's private container: `Documents/`, `Library/` (with `Caches/`,
/// `Preferences/` and `Application Support/`) and `tmp/`.
///
/// Corresponds to the sandbox container iOS gives every app, reached there through
/// `FileManager.default.urls(for:in:)`. Here it lives in a per-app folder:
/// `$KEEPSAKE_CONTAINERS/<identifier>` when that variable is set, otherwise
/// `$XDG_DATA_HOME/keepsake/containers/<identifier>` (XDG's default data home is
/// `~/.local/share`). Directories are created when first used.
///
/// ```swift
/// let container = try AppContainer(identifier: "com.example.Homepwner")
/// let documents = container.directory(.documents)
/// try documents.write(archive, to: "items.archive")
/// let url = container.urls(for: .documentDirectory, in: .userDomainMask).first
/// ```
public struct AppContainer: Sendable {
    /// The app identifier, reverse-DNS by convention, e.g. `com.example.Homepwner`.
    public let identifier: String
    /// The container's root folder.
    public let url: URL
    let system: SystemCalls

    /// The container of `identifier` under `containersDirectory`, or under the
    /// default location described above when it is nil.
    ///
    /// - Parameters:
    ///   - identifier: the app's bundle identifier, which names the container's folder.
    ///   - containersDirectory: the folder that holds containers; nil for the default.
    ///   - environment: where `KEEPSAKE_CONTAINERS`, `XDG_DATA_HOME` and `HOME` are
    ///     read; tests pass their own so they never touch the home directory.
    /// - Throws: ``SandboxError`` `.invalidName` when `identifier` is not a bundle
    ///   identifier: dot-separated labels of ASCII letters, digits and hyphens.
    public init(
        identifier: String, containersDirectory: URL? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SandboxError) {
        try Self.validate(identifier: identifier)
        let parent = containersDirectory ?? Self.defaultContainersDirectory(environment: environment)
        self.init(
            identifier: identifier, url: parent.appendingPathComponent(identifier, isDirectory: true), system: .live)
    }

    package init(identifier: String, url: URL, system: SystemCalls) {
        self.identifier = identifier
        self.url = url.standardizedFileURL
        self.system = system
    }

    /// A throwaway container in a fresh folder under the system's temporary
    /// directory, for tests and previews. Remove it with ``destroy()``.
    public static func temporary(identifier: String = "org.keepsake.temporary") throws(SandboxError) -> AppContainer {
        try validate(identifier: identifier)
        let unique = "keepsake-\(identifier)-\(UInt64.random(in: .min ... .max))"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(unique, isDirectory: true)
        let container = AppContainer(identifier: identifier, url: url, system: .live)
        try container.createDirectories()
        return container
    }

    /// Where containers live when no folder is given: `$KEEPSAKE_CONTAINERS`, else
    /// `$XDG_DATA_HOME/keepsake/containers`, else `~/.local/share/keepsake/containers`.
    /// Relative values are ignored, as the XDG specification asks.
    public static func defaultContainersDirectory(environment: [String: String]) -> URL {
        if let path = environment["KEEPSAKE_CONTAINERS"], path.hasPrefix("/") {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        if let path = environment["XDG_DATA_HOME"], path.hasPrefix("/") {
            return URL(fileURLWithPath: path, isDirectory: true).appendingPathComponent(
                "keepsake/containers", isDirectory: true)
        }
        let home =
            environment["HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share/keepsake/containers", isDirectory: true)
    }

    // MARK: Directories

    /// The directories of a container, named after their iOS counterparts.
    public enum Directory: String, Sendable, Hashable, CaseIterable {
        /// `Documents/`: the user's data; backed up.
        case documents
        /// `Library/`: app data the user does not see; backed up except `Caches/`.
        case library
        /// `Library/Caches/`: re-creatable data; not backed up, purgeable.
        case caches
        /// `Library/Preferences/`: user defaults; backed up.
        case preferences
        /// `Library/Application Support/`: app-created support files; backed up.
        case applicationSupport
        /// `tmp/`: scratch files; not backed up, cleared of stale files at launch.
        case temporary

        /// Path components below the container root.
        public var pathComponents: [String] {
            switch self {
            case .documents: ["Documents"]
            case .library: ["Library"]
            case .caches: ["Library", "Caches"]
            case .preferences: ["Library", "Preferences"]
            case .applicationSupport: ["Library", "Application Support"]
            case .temporary: ["tmp"]
            }
        }
    }

    /// The URL of one of the container's directories (not created by this call).
    public func url(for directory: Directory) -> URL {
        directory.pathComponents.reduce(url) { $0.appendingPathComponent($1, isDirectory: true) }
    }

    // The named directories exist when asked for, as they always do in an iOS
    // container: the books' `try? data.write(to:)` into a folder that is not there
    // would store nothing and say nothing.

    /// `Documents/`, created if missing. Corresponds to
    /// `FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first!`.
    public var documentsDirectory: URL { existingURL(for: .documents) }
    /// `Library/`, created if missing.
    public var libraryDirectory: URL { existingURL(for: .library) }
    /// `Library/Caches/`, created if missing.
    public var cachesDirectory: URL { existingURL(for: .caches) }
    /// `Library/Preferences/`, created if missing.
    public var preferencesDirectory: URL { existingURL(for: .preferences) }
    /// `Library/Application Support/`, created if missing.
    public var applicationSupportDirectory: URL { existingURL(for: .applicationSupport) }
    /// `tmp/`, created if missing. Corresponds to `FileManager.temporaryDirectory`
    /// (`NSTemporaryDirectory()`), which on iOS is the container's `tmp/`.
    public var temporaryDirectory: URL { existingURL(for: .temporary) }

    /// The URL of `kind`, created first when missing. A folder that cannot be made
    /// (no space, a file in its place) is left to the write into it, which reports why.
    func existingURL(for kind: Directory) -> URL {
        try? directory(kind).create()
        return url(for: kind)
    }

    /// File operations confined to one of the container's directories.
    public func directory(_ kind: Directory) -> SandboxDirectory {
        SandboxDirectory(container: self, kind: kind)
    }

    /// Creates every directory of the container that is missing.
    public func createDirectories() throws(SandboxError) {
        for kind in Directory.allCases { try directory(kind).create() }
    }

    /// Removes the container and everything in it.
    public func destroy() throws(SandboxError) {
        do {
            try FileSystem(system: system).removeItem(at: url)
        } catch .noSuchFile {
            // Already gone.
        }
    }

    // MARK: Identifier

    /// Accepts identifiers as Apple's bundle identifiers allow them: a folder name
    /// (``NameValidator``) made of dot-separated labels of ASCII letters, digits and
    /// hyphens. Reverse-DNS (`com.example.App`) is the convention; a single label
    /// (an executable's name, for ``main``) is allowed.
    /// An ASCII letter, digit or hyphen: what a label of an identifier is made of.
    static func isLabelByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x2D
    }

    static func validate(identifier: String) throws(SandboxError) {
        if let problem = NameValidator.problem(in: identifier) {
            throw SandboxError(.invalidName, "app identifier: \(problem)", path: identifier)
        }
        let labels = identifier.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isLabelByte) }) else {
            throw SandboxError(
                .invalidName,
                "app identifier must be labels of letters, digits and hyphens between dots, like com.example.App",
                path: identifier)
        }
    }
}
