import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// `keepsake archive|unarchive`, run as a user would run them.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class ArchiveCommandTests: ScratchFiles {
    let scratch = TemporaryDirectory("keepsake-archive-cli")

    @Test(arguments: [("binary1", PropertyListFormat.binary), ("xml1", .xml)])
    func archiveStoresAPropertyListAsFoundationCollections(_ flag: String, _ format: PropertyListFormat) throws {
        let value: PropertyListValue = [
            "name": "Spork", "values": [1, 2.5, true], "when": .date(Date(timeIntervalSinceReferenceDate: 7)),
        ]
        let source = directory.appendingPathComponent("in.plist")
        try Data(try PropertyListWriter.xml.write(value)).write(to: source)
        let target = directory.appendingPathComponent("out.archive")
        let result = try CLIRunner.run(["archive", source.path, "--format", flag, "-o", target.path])
        #expect(result.status == 0, "\(result.stderr)")

        let data = try Data(contentsOf: target)
        #expect(PropertyListFormat.detect([UInt8](data)) == format)
        let tree = try PropertyListReader().read(data)
        #expect(tree["$archiver"] == "NSKeyedArchiver")
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: PropertyListValue.self, from: data) == value)
    }

    @Test(.requiresCorpus)
    func unarchivePrintsANibsObjectsAndSharedObjectsOnce() throws {
        let nib = try #require(
            Corpus.url("archives/apple/R-macos-Mac-GUI/English.lproj_RConsole.nib_keyedobjects.nib"), "no corpus")
        let result = try CLIRunner.run(["unarchive", nib.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\"IB.objectdata\" => <NSIBObjectData #1> {"))
        #expect(result.stdout.contains("\"NSClassName\" => \"RConsoleController\""))
        // The text view is its clip view's document view: a back reference, printed as one.
        #expect(result.stdout.contains("\"NSDocView\" => <NSTextView #4> (see above)"))
    }

    @Test func unarchiveReadsStandardInput() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ["a": [1, 2]] as PropertyListValue)
        let result = try CLIRunner.run(["unarchive", "-"], stdin: data)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\"root\" => {\n  \"a\" => [\n    0 => 1\n    1 => 2\n  ]\n}\n")
    }

    /// A binary archive in a regular file is read whole in one go, standard input as a
    /// stream: both print the same in every format, and fail alike on malformed archives.
    @Test(.requiresCorpus)
    func unarchiveOfAFileAndOfStandardInputAgree() throws {
        let malformed = Corpus.files(under: "archives/malformed/bpylist2")
        try #require(!malformed.isEmpty, "no malformed archives in the corpus")
        let names = ["archives/apple/R-macos-Mac-GUI/English.lproj_RConsole.nib_keyedobjects.nib"] + malformed
        for name in names {
            let file = try #require(Corpus.url(name))
            let data = try Data(contentsOf: file)
            for format in ["text", "json", "xml1"] {
                let fromFile = try CLIRunner.run(["unarchive", file.path, "--format", format])
                let fromInput = try CLIRunner.run(["unarchive", "-", "--format", format], stdin: data)
                #expect(fromFile.status == fromInput.status, "\(name) \(format)")
                #expect(fromFile.stdout == fromInput.stdout, "\(name) \(format)")
                #expect(fromFile.stderr == fromInput.stderr, "\(name) \(format)")
            }
        }
    }

    @Test(.requiresCorpus)
    func hostileArchivesFailWithAMessage() throws {
        let files = Corpus.files(under: "archives/malformed/bpylist2")
        try #require(!files.isEmpty, "no malformed archives in the corpus")
        for name in files {
            let result = try CLIRunner.run(["unarchive", try #require(Corpus.url(name)).path])
            #expect(result.status == 1, "\(name): \(result.stdout)")
            #expect(result.stderr.contains("Error"), "\(name): \(result.stderr)")
        }
    }

    @Test func missingOutputIsAUsageError() throws {
        #expect(try CLIRunner.run(["archive", "in.plist"]).status == 64)
        #expect(try CLIRunner.run(["unarchive"]).status == 64)
    }
}
