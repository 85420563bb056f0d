import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// libplist's `plistutil` reads our binary output: it converts each file to its own
/// binary, which must read back to the value we wrote.
struct PlistutilInteropTests {
    static let plistutil = ChildProcess.onPath("plistutil")

    @Test(
        .requiresCorpus,
        .enabled(if: plistutil != nil, "plistutil is not installed (apt-get install libplist-utils)"))
    func plistutilReadsOurBinaryOutputOfEveryCorpusFile() throws {
        let plistutil = try #require(Self.plistutil)
        let directory = TemporaryDirectory("keepsake-plistutil")
        defer { directory.remove() }
        var checked = 0
        for path in Corpus.files(under: "plist/valid") + Corpus.files(under: "archives/apple") {
            guard let value = try? PropertyListReader().read(try Corpus.bytes(path)) else { continue }
            let ours = directory.file("ours.bplist")
            let theirs = directory.file("theirs.bplist")
            try Data(try PropertyListWriter.binary.write(value)).write(to: ours)
            try? FileManager.default.removeItem(at: theirs)
            let converted = try ChildProcess.run(plistutil, ["-i", ours.path, "-o", theirs.path, "-f", "bin"])
            guard converted.status == .exited(0) else {
                Issue.record("plistutil rejects our output for \(path)")
                continue
            }
            let roundTripped = try PropertyListReader().read([UInt8](Data(contentsOf: theirs)))
            #expect(roundTripped == value, "plistutil reads our output of \(path) differently")
            checked += 1
        }
        #expect(checked > 100)
    }
}
