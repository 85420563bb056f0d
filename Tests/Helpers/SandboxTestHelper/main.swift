// A child process for the sandbox's reliability tests; not part of the library.
//
//   SandboxTestHelper crash-writer FILE         save numbered versions of FILE forever,
//                                               printing "saved N" after each one
//   SandboxTestHelper verify FILE               exit 0 if FILE is absent or one complete
//                                               version (prints it), 1 otherwise
//   SandboxTestHelper increment FILE ROUNDS LOCKDIR
//                                               ROUNDS coordinated read-increment-writes
//                                               of a counter; exit 2 on a torn read
import AppSandbox
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: SandboxTestHelper crash-writer|verify|increment FILE …") }
let file = URL(fileURLWithPath: arguments[2])

switch arguments[1] {
case "crash-writer":
    var version = (try? FileSystem.default.contents(of: file)).flatMap(VersionFile.decode) ?? 0
    while true {
        version += 1
        do {
            try FileSystem.default.write(VersionFile.encode(version), to: file)
        } catch {
            fail("write failed: \(error)")
        }
        say("saved \(version)")
    }

case "verify":
    guard FileManager.default.fileExists(atPath: file.path) else {
        say("absent")
        exit(0)
    }
    guard let data = try? FileSystem.default.contents(of: file), let version = VersionFile.decode(data) else {
        fail("torn or corrupt: \(file.path)")
    }
    say("version \(version)")

case "increment":
    guard arguments.count == 5, let rounds = Int(arguments[3]) else { fail("usage: increment FILE ROUNDS LOCKDIR") }
    let coordinator = FileCoordinator(lockDirectory: URL(fileURLWithPath: arguments[4]))
    // The counter file is "count=N" followed by N % 997 filler bytes, so a torn or
    // mixed read shows as a length that does not match the count.
    func parse(_ data: Data) -> Int? {
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix("count="), let newline = text.firstIndex(of: "\n"),
            let count = Int(text[text.index(text.startIndex, offsetBy: 6)..<newline])
        else { return nil }
        return text[text.index(after: newline)...].utf8.count == count % 997 ? count : nil
    }
    for _ in 0..<rounds {
        do {
            try coordinator.coordinate(writingItemAt: file) { url in
                var count = 0
                if let data = try? FileSystem.default.contents(of: url) {
                    guard let parsed = parse(data) else { fail("torn counter file", code: 2) }
                    count = parsed
                }
                count += 1
                try FileSystem.default.write("count=\(count)\n" + String(repeating: "x", count: count % 997), to: url)
            }
            // A coordinated read between writes must always see a whole version.
            try coordinator.coordinate(readingItemAt: file) { url in
                guard parse(try FileSystem.default.contents(of: url)) != nil else { fail("torn read", code: 2) }
            }
        } catch {
            fail("increment failed: \(error)")
        }
    }
    say("done")

default:
    fail("unknown mode \(arguments[1])")
}
