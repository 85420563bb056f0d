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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A version file: a header line `keepsake-version N LENGTH CHECKSUM` then LENGTH
/// bytes whose FNV-1a hash is CHECKSUM. Lengths vary from 1 byte to ~200 KB, so a
/// kill lands in every step of the write.
enum VersionFile {
    static func payload(_ version: Int) -> [UInt8] {
        let length = (version &* 7919) % 200_000 + 1
        return (0..<length).map { UInt8(truncatingIfNeeded: version &* 31 &+ $0 &* 7) }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    static func encode(_ version: Int) -> Data {
        let body = payload(version)
        return Data("keepsake-version \(version) \(body.count) \(checksum(body))\n".utf8) + body
    }

    /// The version in `data`, or nil when it is not exactly one complete version.
    static func decode(_ data: Data) -> Int? {
        guard let newline = data.firstIndex(of: 0x0A) else { return nil }
        let fields = String(decoding: data[..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 4, fields[0] == "keepsake-version", let version = Int(fields[1]),
            let length = Int(fields[2]), let sum = UInt64(fields[3])
        else { return nil }
        let body = [UInt8](data[(newline + 1)...])
        guard body.count == length, checksum(body) == sum, body == payload(version) else { return nil }
        return version
    }
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

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
