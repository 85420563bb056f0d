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
    /// The helper's version format: header `keepsake-version N LENGTH CHECKSUM`, then
    /// LENGTH bytes (see Tests/Helpers/SandboxTestHelper/main.swift).
    static func decode(_ data: Data) -> Int? {
        guard let newline = data.firstIndex(of: 0x0A) else { return nil }
        let fields = String(decoding: data[..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 4, fields[0] == "keepsake-version", let version = Int(fields[1]),
            let length = Int(fields[2]), let sum = UInt64(fields[3])
        else { return nil }
        let body = data[(newline + 1)...]
        let hash = body.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
        guard body.count == length, hash == sum, length == (version &* 7919) % 200_000 + 1 else { return nil }
        return version
    }

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
            let version = try #require(Self.decode(data), "iteration \(iteration): torn file of \(data.count) bytes")
            #expect(
                version >= reported, "iteration \(iteration): version \(version) older than the reported \(reported)")
            #expect(version <= reported + 1, "iteration \(iteration): version \(version) was never written")
            lastSaved = version
        }
    }
}
