public import Foundation
public import Testing

/// The shared conformance corpus, read in place from `../shared/corpus` beside the
/// checkout. Tests that need it skip cleanly when it is absent.
public enum Corpus {
    public static let root: URL? = {
        var url = URL(fileURLWithPath: #filePath)
        // Corpus.swift → TestSupport → Tests → package root.
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let corpus = url.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: corpus.path) ? corpus : nil
    }()

    public static var isAvailable: Bool { root != nil }

    /// Relative paths (from the corpus root) of every file under `folder`, sorted.
    public static func files(under folder: String) -> [String] {
        guard let root else { return [] }
        let base = root.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var paths: [String] = []
        for case let url as URL in enumerator
        where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            paths.append(String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)))
        }
        return paths.sorted()
    }

    public static func url(_ relativePath: String) -> URL? {
        root?.appendingPathComponent(relativePath)
    }

    public static func data(_ relativePath: String) throws -> Data {
        guard let url = url(relativePath) else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: url)
    }

    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try data(relativePath))
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test only when `../shared/corpus` is beside the checkout, and says why it
    /// skipped when it is not.
    public static var requiresCorpus: Self {
        .enabled(if: Corpus.isAvailable, "../shared/corpus is not beside the checkout")
    }
}
