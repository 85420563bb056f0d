import Foundation
import PropertyList
import TestSupport
import Testing

/// `convert --format json` and `unarchive --format json` write strings with one escaper:
/// every control character, read back by Python's `json`, is the character written, and
/// both outputs spell the string byte for byte alike.
@Suite(
    .enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"),
    .enabled(if: Python.executable != nil, "python3 is not installed"))
struct JSONEscapingTests {
    /// Every control character, DEL, the two that JSON always escapes, a slash and
    /// non-ASCII text.
    static let text =
        String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        + "\u{7F}\"\\/é😀"

    /// The UTF-8 of every string in the JSON file, in hex, one per line, as Python reads them.
    static func stringsReadByPython(_ file: URL) throws -> Set<String> {
        let script = """
            import json, sys
            def walk(value):
                if isinstance(value, str): print(value.encode("utf-8").hex())
                elif isinstance(value, dict):
                    for key, item in value.items(): walk(key); walk(item)
                elif isinstance(value, list):
                    for item in value: walk(item)
            walk(json.load(open(sys.argv[1], encoding="utf-8")))
            """
        return Set(try Python.text(script, [file.path]).split(separator: "\n").map(String.init))
    }

    @Test func bothJSONOutputsEscapeEveryControlCharacterAlike() throws {
        let folder = TemporaryDirectory("keepsake-json")
        defer { folder.remove() }
        let plist = folder.file("in.plist")
        try Data(try PropertyListWriter.binary.write(["text": .string(Self.text)])).write(to: plist)
        let plistJSON = folder.file("plist.json")
        let archive = folder.file("in.archive")
        let archiveJSON = folder.file("archive.json")
        for arguments in [
            ["convert", plist.path, "--format", "json", "-o", plistJSON.path],
            ["archive", plist.path, "-o", archive.path],
            ["unarchive", archive.path, "--format", "json", "-o", archiveJSON.path],
        ] {
            let result = try CLIRunner.run(arguments)
            #expect(result.status == 0, "\(arguments[0]): \(result.stderr)")
        }

        let expected = Data(Self.text.utf8).map { String(format: "%02x", $0) }.joined()
        #expect(try Self.stringsReadByPython(plistJSON).contains(expected), "the plist JSON lost a character")
        #expect(try Self.stringsReadByPython(archiveJSON).contains(expected), "the archive JSON lost a character")

        // The escaped string as the plist writer spells it, found unchanged in the archive's.
        let written = String(decoding: try Data(contentsOf: plistJSON), as: UTF8.self)
        let start = try #require(written.range(of: "\"\\u0000"))
        let end = try #require(written.range(of: "😀\"", range: start.upperBound..<written.endIndex))
        let spelled = String(written[start.lowerBound..<end.upperBound])
        #expect(spelled.contains("\\b\\t\\n\\u000b\\f\\r"), "\(spelled)")
        #expect(String(decoding: try Data(contentsOf: archiveJSON), as: UTF8.self).contains(spelled))
    }
}
