public import Foundation

/// One file to coordinate on and whether it will be read or written.
/// Corresponds to `NSFileAccessIntent`.
public struct FileAccessIntent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case reading, writing }

    public var url: URL
    public var kind: Kind

    /// Corresponds to `NSFileAccessIntent.readingIntent(with:options:)`.
    public static func readingIntent(
        with url: URL, options: FileCoordinator.ReadingOptions = []
    ) -> FileAccessIntent {
        FileAccessIntent(url: url, kind: .reading)
    }

    /// Corresponds to `NSFileAccessIntent.writingIntent(with:options:)`.
    public static func writingIntent(
        with url: URL, options: FileCoordinator.WritingOptions = []
    ) -> FileAccessIntent {
        FileAccessIntent(url: url, kind: .writing)
    }
}
