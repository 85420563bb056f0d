import Foundation

/// The shared conformance corpus, read in place from `../shared/corpus` beside the
/// checkout. Tests that need it skip cleanly when it is absent.
enum Corpus {
    static let root: URL? = {
        var url = URL(fileURLWithPath: #filePath)
        // Support → KeyedArchiveTests → Tests → package root.
        for _ in 0..<4 { url.deleteLastPathComponent() }
        let corpus = url.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: corpus.path) ? corpus : nil
    }()

    static var isAvailable: Bool { root != nil }

    /// Relative paths (from the corpus root) of every file under `folder`, sorted.
    static func files(under folder: String) -> [String] {
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

    static func url(_ relativePath: String) -> URL? {
        root?.appendingPathComponent(relativePath)
    }

    static func data(_ relativePath: String) throws -> Data {
        guard let url = url(relativePath) else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: url)
    }
}
