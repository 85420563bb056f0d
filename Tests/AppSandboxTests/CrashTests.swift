import Foundation
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
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let file = folder.file("state.bin")
        var lastSaved = 0
        for iteration in 0..<30 {
            let process = Process()
            process.executableURL = Helper.url
            process.arguments = ["crash-writer", file.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            // Wait for 1–4 saves (no sleeping: the child's own output paces us), then
            // kill it, which lands somewhere inside a later save.
            let target = Int.random(in: 1...4)
            var output = Data()
            var seen = 0
            while seen < target {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                output.append(chunk)
                seen = output.filter { $0 == 0x0A }.count
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            output.append(pipe.fileHandleForReading.readDataToEndOfFile())
            let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
            let reported = lines.last.flatMap { Int($0.split(separator: " ").last ?? "") } ?? lastSaved
            #expect(
                process.terminationReason == .uncaughtSignal, "iteration \(iteration): the child must die by the signal"
            )

            let data = try Data(contentsOf: file)
            let version = try #require(Self.decode(data), "iteration \(iteration): torn file of \(data.count) bytes")
            #expect(
                version >= reported, "iteration \(iteration): version \(version) older than the reported \(reported)")
            #expect(version <= reported + 1, "iteration \(iteration): version \(version) was never written")
            lastSaved = version
        }
    }
}
