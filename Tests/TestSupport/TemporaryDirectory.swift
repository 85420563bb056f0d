public import Foundation

/// A folder of its own for one test, removed with the value: a suite holds one as a
/// stored property, and Swift Testing makes a suite instance per test. A test that
/// makes one as a local calls `remove()` in a `defer`, since a local may be released
/// after its last use rather than at the end of its scope.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    /// Makes `$TMPDIR/PREFIX-UUID`. A folder that cannot be made fails the test at its
    /// first use, with the path in the error, so the initializer need not throw.
    public init(_ prefix: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Everything in the folder, sorted: a layer's temporary files included.
    public func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }

    public func remove() { try? FileManager.default.removeItem(at: url) }

    deinit {
        remove()
    }
}
