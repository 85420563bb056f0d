import Foundation
import TestSupport
import Testing

@testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

/// kill -9 at random moments while a child saves numbered versions; the file must
/// always decode as one complete version, and never one older than the child had
/// reported as saved. `scripts/crash-loop.sh` runs the same check 1000+ times.
@Suite("Crash safety")
struct CrashTests {
    @Test(
        "A writer killed with SIGKILL at random moments always leaves a complete version",
        .enabled(if: Helper.url != nil, "SandboxTestHelper is not built next to the tests"),
        .timeLimit(.minutes(3))
    )
    func killNine() throws {
        let folder = TemporaryDirectory("keepsake-tests")
        defer { folder.remove() }
        let file = folder.file("state.bin")
        var lastSaved = 0
        for iteration in 0..<30 {
            let writer = try ChildProcess(try #require(Helper.url), ["crash-writer", file.path])
            defer { writer.end() }
            // Wait for 1–4 saves (no sleeping: the child's own output paces us), then
            // kill it, which lands somewhere inside a later save.
            let target = Int.random(in: 1...4)
            try writer.poll("\(target) reported saves") { writer.lines.count >= target }
            writer.signal(SIGKILL)
            #expect(
                try writer.waitForExit() == .signalled(SIGKILL),
                "iteration \(iteration): the child must die by the signal")
            // Every save it reported, including any between the poll and the kill.
            let reported = writer.lines.last.flatMap { Int($0.split(separator: " ").last ?? "") } ?? lastSaved

            let data = try Data(contentsOf: file)
            let version = try #require(
                VersionFile.decode(data), "iteration \(iteration): torn file of \(data.count) bytes")
            #expect(
                version >= reported, "iteration \(iteration): version \(version) older than the reported \(reported)")
            #expect(version <= reported + 1, "iteration \(iteration): version \(version) was never written")
            lastSaved = version
        }
    }
}
