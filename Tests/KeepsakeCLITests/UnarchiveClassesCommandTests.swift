import Foundation
import TestSupport
import Testing

/// `keepsake unarchive --classes` and `--simulate`, run as a user would run them: the
/// list printed for an archive, fed back to `--simulate`, decodes it, and without any one
/// of its classes it fails with Foundation's error and exit status 1.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
struct UnarchiveClassesCommandTests {
    static let archives = [
        "archives/apple/R-macos-Mac-GUI/English.lproj_RConsole.nib_keyedobjects.nib",
        "archives/apple/swift-corelibs-foundation/Tests_Foundation_Resources_NSKeyedUnarchiver-ArrayTest.plist",
        "archives/other/bpylist2/complex_archive.plist",
    ]

    @Test(.requiresCorpus, arguments: archives)
    func printedNamesRoundTripThroughSimulate(_ path: String) throws {
        let archive = try #require(Corpus.url(path))
        let report = try CLIRunner.run(["unarchive", "--classes", archive.path])
        #expect(report.status == 0, "\(report.stderr)")
        let namesLine = try #require(
            report.stdout.split(separator: "\n").first { $0.hasPrefix("Archived names, for --simulate: ") })
        let names = namesLine.dropFirst("Archived names, for --simulate: ".count).split(separator: ",").map(String.init)
        #expect(!names.isEmpty)
        #expect(report.stdout.contains("ofClasses: [") || report.stdout.contains("decoder.decodeObject(of: ["))

        let decoded = try CLIRunner.run(["unarchive", "--simulate", names.joined(separator: ","), archive.path])
        #expect(decoded.status == 0, "\(decoded.stdout)\(decoded.stderr)")
        #expect(decoded.stdout.hasPrefix("decoded: "))
        for removed in names {
            let fewer = names.filter { $0 != removed }.joined(separator: ",")
            let refused = try CLIRunner.run(["unarchive", "--simulate", fewer, archive.path])
            #expect(refused.status == 1, "\(removed) is needed")
            #expect(refused.stdout.hasPrefix("error 4864: classNotAllowed: "), "\(refused.stdout)")
        }
    }

    @Test(.requiresCorpus) func classesArePrintedPerKeyPath() throws {
        let archive = try #require(
            Corpus.url(
                "archives/apple/swift-corelibs-foundation/Tests_Foundation_Resources_NSKeyedUnarchiver-ArrayTest.plist")
        )
        let result = try CLIRunner.run(["unarchive", "--classes", archive.path])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["root", "NSArray"])
        #expect(
            lines.contains {
                $0.hasPrefix("root[]") && $0.hasSuffix("NSString (inline: passes unlisted, with a warning)")
            })
        #expect(lines.contains("KeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self], from: data)"))
    }

    @Test func simulateAndClassesTogetherAreAUsageError() throws {
        let result = try CLIRunner.run(["unarchive", "--classes", "--simulate", "NSArray", "/dev/null"])
        #expect(result.status == 64)
    }
}
