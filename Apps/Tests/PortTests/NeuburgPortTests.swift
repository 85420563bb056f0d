import Foundation
import TestSupport
import Testing

/// Neuburg's "Persistent Storage" examples, ported with the porting table only
/// (Ports/Neuburg): the sandbox's directories, a folder and a file, a Person archived and
/// read back directly and through a file coordinator, and user defaults, run twice.
@Suite(.enabled(if: Port.executable(named: "NeuburgPort") != nil, "NeuburgPort is not built"))
final class NeuburgPortTests: PortSuite {
    static let port = "NeuburgPort"
    let scratch = TemporaryDirectory("keepsake-neuburg")

    @Test("Every example runs in the app's own container, and what it saved is there for the next run")
    func examplesRunTwice() throws {
        let first = try run()
        #expect(first.status == 0, "\(first.errors)")
        #expect(
            first.output
                == "Application Support\nMyFolder\nMatt Neuburg\ncoordinated Matt Neuburg\nrows 4\n")
        #expect(
            try String(contentsOf: container.appendingPathComponent("Documents/MyFolder/file1.txt"), encoding: .utf8)
                == "howdy")

        let second = try run()
        #expect(second.status == 0, "\(second.errors)")
        // The coordinator's lock file sits beside the item it guards, where every
        // process that reaches the item finds it; the book's listing shows it too.
        let listed = second.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(listed.contains(".keepsake-moi.txt.lock"))
        #expect(
            listed.filter { !$0.hasPrefix(".keepsake-") }.joined(separator: "\n")
                == "Application Support\nMyFolder\nmoi.txt\nMatt Neuburg\ncoordinated Matt Neuburg\nrows 5\n",
            "the archive and the defaults saved by the first run")
    }
}
