import BenchmarkData
import CLibPlist
import Foundation
import PropertyList

// The property-list cases against every reader and writer a user could pick instead, on
// the same 100k-record data in one run: libplist in this process (Debian's
// libplist-dev), the Rust plist crate and Python's plistlib (child processes timing
// themselves on the same files) and Foundation. Best of N runs each; the last column is
// the best peer's time over ours.
// Usage: swift run -c release --package-path Benchmarks PeerRatios [runs]
// (build Benchmarks/Peers/rust-plist first with `cargo build --release` there).
// `PeerRatios --write-data DIR` only writes the two files, records-100k.bplist and
// records-100k.xml, for benchmarks of whole commands (scripts/extract-benchmark.sh).

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--write-data" {
    let folder = URL(fileURLWithPath: CommandLine.arguments[2])
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let records = HomepwnerRecords.value(count: 100_000)
    try Data(PropertyListWriter.binary.write(records)).write(to: folder.appendingPathComponent("records-100k.bplist"))
    try Data(PropertyListWriter.xml.write(records)).write(to: folder.appendingPathComponent("records-100k.xml"))
    exit(0)
}

let runs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 7 : 7

func best(_ body: () throws -> Void) rethrows -> Double { try bestOf(runs, body) }

let value = HomepwnerRecords.value(count: 100_000)
let object = HomepwnerRecords.foundationObject(count: 100_000)
let binary = try PropertyListWriter.binary.write(value)
let xml = try PropertyListWriter.xml.write(value)

// libplist: a tree read once from the binary file, for its writers.
var libplistTree: plist_t?
binary.withUnsafeBytes { plist_from_bin($0.baseAddress, UInt32($0.count), &libplistTree) }
guard let libplistTree else { fatalError("libplist could not read our binary plist") }

enum Case: String, CaseIterable {
    case readBinary = "read binary"
    case writeXML = "write XML"
    case writeBinary = "write binary"
    case readXML = "read XML"
}

func keepsake(_ which: Case) throws -> Double {
    switch which {
    case .readBinary: try best { _ = try PropertyListReader().read(binary) }
    case .writeXML: try best { _ = try PropertyListWriter.xml.write(value) }
    case .writeBinary: try best { _ = try PropertyListWriter.binary.write(value) }
    case .readXML: try best { _ = try PropertyListReader().read(xml) }
    }
}

func libplist(_ which: Case) -> Double {
    switch which {
    case .readBinary:
        best {
            var tree: plist_t?
            binary.withUnsafeBytes { plist_from_bin($0.baseAddress, UInt32($0.count), &tree) }
            plist_free(tree)
        }
    case .writeXML:
        best {
            var bytes: UnsafeMutablePointer<CChar>?
            var length: UInt32 = 0
            plist_to_xml(libplistTree, &bytes, &length)
            plist_to_xml_free(bytes)
        }
    case .writeBinary:
        best {
            var bytes: UnsafeMutablePointer<CChar>?
            var length: UInt32 = 0
            plist_to_bin(libplistTree, &bytes, &length)
            plist_to_bin_free(bytes)
        }
    case .readXML:
        best {
            var tree: plist_t?
            xml.withUnsafeBytes { plist_from_xml($0.baseAddress, UInt32($0.count), &tree) }
            plist_free(tree)
        }
    }
}

@MainActor func foundation(_ which: Case) throws -> Double {
    switch which {
    case .readBinary: try best { _ = try PropertyListSerialization.propertyList(from: Data(binary), format: nil) }
    case .writeXML:
        try best { _ = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0) }
    case .writeBinary:
        try best { _ = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0) }
    case .readXML: try best { _ = try PropertyListSerialization.propertyList(from: Data(xml), format: nil) }
    }
}

/// The best times, in milliseconds, of a peer run as a child process on the same files:
/// `command` gets the binary file, the XML file and the run count, and prints one time
/// per case, in `Case` order. nil when it cannot run.
func childPeer(_ command: [String]) -> [Case: Double]? {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-peers-\(getpid())")
    defer { try? FileManager.default.removeItem(at: folder) }
    let binaryFile = folder.appendingPathComponent("records.bplist")
    let xmlFile = folder.appendingPathComponent("records.xml")
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(binary).write(to: binaryFile)
        try Data(xml).write(to: xmlFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command + [binaryFile.path, xmlFile.path, String(runs)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let times = text.split(separator: "\n").compactMap { Double($0) }
        guard process.terminationStatus == 0, times.count == Case.allCases.count else { return nil }
        return Dictionary(uniqueKeysWithValues: zip(Case.allCases, times))
    } catch {
        return nil
    }
}

let plistlibScript = """
    import plistlib, sys, time
    binary = open(sys.argv[1], 'rb').read(); xml = open(sys.argv[2], 'rb').read(); runs = int(sys.argv[3])
    value = plistlib.loads(binary)
    def best(f):
        times = []
        for _ in range(runs):
            start = time.perf_counter(); f(); times.append(time.perf_counter() - start)
        return min(times) * 1000
    print(best(lambda: plistlib.loads(binary)))
    print(best(lambda: plistlib.dumps(value, fmt=plistlib.FMT_XML)))
    print(best(lambda: plistlib.dumps(value, fmt=plistlib.FMT_BINARY)))
    print(best(lambda: plistlib.loads(xml)))
    """
let rustPeer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Peers/rust-plist/target/release/rust-plist-peer").path

func format(_ milliseconds: Double?) -> String {
    milliseconds.map { String(format: "%.1f ms", $0) } ?? "—"
}

let python = childPeer(["python3", "-c", plistlibScript])
let rust = FileManager.default.isExecutableFile(atPath: rustPeer) ? childPeer([rustPeer]) : nil
print(
    "| case, 100k records (best of \(runs)) | keepsake | libplist | Rust plist | plistlib | Foundation "
        + "| best peer / keepsake |")
print("|:--|--:|--:|--:|--:|--:|--:|")
for which in Case.allCases {
    let ours = try keepsake(which)
    let peers = [libplist(which), rust?[which], python?[which], try foundation(which)]
    let bestPeer = peers.compactMap { $0 }.min()!
    print(
        "| \(which.rawValue) | \(format(ours)) | " + peers.map(format).joined(separator: " | ") + " | "
            + String(format: "%.2f×", bestPeer / ours) + " |")
}
plist_free(libplistTree)
