import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// Every corpus file read by us and by Python's `plistlib`, compared value by value.
struct PlistlibConformanceTests {
    static let folders = ["plist/valid", "plist/invalid", "plist/edge", "archives"]

    @Test(.requiresCorpus, .enabled(if: PythonPeer.isAvailable, Comment(rawValue: PythonPeer.skipMessage)))
    func everyCorpusFileReadsAsPlistlibReadsIt() throws {
        let root = Corpus.root!
        let paths = Self.folders.flatMap(Corpus.files(under:))
        let peer = try PythonPeer.read(paths.map { root.appendingPathComponent($0).path })
        #expect(peer.count == paths.count)
        var compared = 0
        for path in paths {
            let theirs = peer[root.appendingPathComponent(path).path] ?? nil
            let bytes = try Corpus.bytes(path)
            let ours = Result { try PropertyListReader().readWithFormat(bytes) }
            // Edge files are ones readers disagree on: any outcome but a crash will do.
            let mustAgree = !path.hasPrefix("plist/edge/")
            switch (ours, theirs) {
            case (.success(let (value, format)), .some(let theirs)) where mustAgree:
                compared += 1
                if let difference = PythonPeer.mismatch(value, theirs, xmlLineEndings: format == .xml) {
                    Issue.record("\(path) differs from plistlib: \(difference)")
                }
            case (.failure(let error), .some) where mustAgree:
                Issue.record("\(path): plistlib reads it, we fail: \(error)")
            case (.success, nil) where path.hasPrefix("plist/invalid/"):
                Issue.record("\(path) is invalid but we read it")
            case (.failure(let error), nil):
                #expect(error is PropertyListError, "\(path): untyped error \(error)")
            default:
                break  // plistlib cannot read OpenStep; edge files may go either way.
            }
        }
        #expect(compared > 150, "too few files compared: \(compared)")
    }

    @Test(.requiresCorpus, .enabled(if: PythonPeer.isAvailable, Comment(rawValue: PythonPeer.skipMessage)))
    func plistlibReadsOurBinaryOutputOfEveryCorpusFile() throws {
        let directory = TemporaryDirectory("keepsake-plistlib")
        defer { directory.remove() }
        // Only values plistlib can hold: it has no dates beyond year 9999 or NaN dates.
        let sources = Self.folders.flatMap(Corpus.files(under:))
        let readable = try PythonPeer.read(sources.map { Corpus.root!.appendingPathComponent($0).path })
        var written: [String: PropertyListValue] = [:]
        for (number, path) in sources.enumerated()
        where (readable[Corpus.root!.appendingPathComponent(path).path] ?? nil) != nil {
            guard let value = try? PropertyListReader().read(try Corpus.bytes(path)) else { continue }
            let file = directory.file("\(number).bplist").path
            try Data(try PropertyListWriter.binary.write(value)).write(to: URL(fileURLWithPath: file))
            written[file] = value
        }
        let peer = try PythonPeer.read(Array(written.keys))
        for (file, value) in written {
            guard let theirs = peer[file] ?? nil else {
                Issue.record("plistlib cannot read our binary output \(file)")
                continue
            }
            if let difference = PythonPeer.mismatch(value, theirs) {
                Issue.record("plistlib reads our output differently: \(difference)")
            }
        }
        #expect(written.count > 150)
    }
}
