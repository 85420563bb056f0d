import BenchmarkData
import CLibPlist
import Foundation
import PropertyList

// The property-list cases against every reader and writer a user could pick instead, on
// the same 100k records as three writers wrote them: Foundation's PropertyListSerialization,
// Python's plistlib and Keepsake, each a binary and an XML file, written at run time.
// Sides: Keepsake, libplist (Debian's libplist-dev), the Rust plist crate, plistlib and
// Foundation. Each side times itself in a process of its own on the same files: a
// process that has built and freed other large trees reads far slower (Keepsake's
// 11.6 MB file took 63 ms inside one such process, 24 ms in a fresh one), and the
// children would otherwise be favoured. A read times one file; a write times writing
// the tree read from that writer's binary file, so that every side writes what it got
// from that file. Frees are timed on every side (each tree or output is released
// inside its run). Best of N runs each; MB/s is the row's file size over the time; the
// last column is the best peer's time over ours.
// Usage: swift run -c release --package-path Benchmarks PeerRatios [runs]
// (build Benchmarks/Peers/rust-plist first with `cargo build --release` there; a whole
// run takes about ten minutes, most of it Foundation's and libplist's binary writes).
// `PeerRatios --time keepsake|libplist|foundation BINARY XML RUNS` is one side's child:
// it prints its best time for each case, in `Case` order, as the Rust peer does.
// `PeerRatios --write-data DIR` only writes Keepsake's two files, records-100k.bplist and
// records-100k.xml, for benchmarks of whole commands (scripts/extract-benchmark.sh).

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--write-data" {
    let folder = URL(fileURLWithPath: CommandLine.arguments[2])
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let records = HomepwnerRecords.value(count: 100_000)
    try Data(PropertyListWriter.binary.write(records)).write(to: folder.appendingPathComponent("records-100k.bplist"))
    try Data(PropertyListWriter.xml.write(records)).write(to: folder.appendingPathComponent("records-100k.xml"))
    exit(0)
}

enum Case: String, CaseIterable {
    case readBinary = "read binary"
    case writeXML = "write XML"
    case writeBinary = "write binary"
    case readXML = "read XML"

    var readsBinaryFile: Bool { self != .readXML && self != .writeXML }
}

/// One writer's binary and XML files of the records, on disk for the child peers.
struct WrittenFiles {
    let writer: String
    let binary: [UInt8]
    let xml: [UInt8]
    let binaryURL: URL
    let xmlURL: URL

    init(writer: String, binary: [UInt8], xml: [UInt8], in folder: URL) throws {
        self.writer = writer
        self.binary = binary
        self.xml = xml
        binaryURL = folder.appendingPathComponent("\(writer).bplist")
        xmlURL = folder.appendingPathComponent("\(writer).xml")
        try Data(binary).write(to: binaryURL)
        try Data(xml).write(to: xmlURL)
    }

    /// The object count in the binary file's trailer.
    var objectCount: UInt64 {
        binary[(binary.count - 24)..<(binary.count - 16)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    func size(for which: Case) -> Int { which.readsBinaryFile ? binary.count : xml.count }
}

func keepsake(_ which: Case, binary: [UInt8], xml: [UInt8], runs: Int) throws -> Double {
    func best(_ body: () throws -> Void) rethrows -> Double { try bestOf(runs, body) }
    let tree = try PropertyListReader().read(binary)
    switch which {
    case .readBinary: return try best { _ = try PropertyListReader().read(binary) }
    case .writeXML: return try best { _ = try PropertyListWriter.xml.write(tree) }
    case .writeBinary: return try best { _ = try PropertyListWriter.binary.write(tree) }
    case .readXML: return try best { _ = try PropertyListReader().read(xml) }
    }
}

func libplist(_ which: Case, binary: [UInt8], xml: [UInt8], runs: Int) -> Double? {
    func best(_ body: () -> Void) -> Double { bestOf(runs, body) }
    var tree: plist_t?
    binary.withUnsafeBytes { plist_from_bin($0.baseAddress, UInt32($0.count), &tree) }
    guard let tree else { return nil }
    defer { plist_free(tree) }
    /// One run of a libplist reader over `input`, the tree it built freed.
    func reading(_ input: [UInt8], _ read: (UnsafePointer<CChar>?, UInt32, UnsafeMutablePointer<plist_t?>) -> Void)
        -> Double
    {
        best {
            var built: plist_t?
            input.withUnsafeBytes {
                read($0.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32($0.count), &built)
            }
            plist_free(built)
        }
    }
    /// One run of a libplist writer over the tree, what it wrote freed.
    func writing(
        _ write: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<UInt32>) -> Void,
        freeing free: (UnsafeMutablePointer<CChar>?) -> Void
    ) -> Double {
        best {
            var bytes: UnsafeMutablePointer<CChar>?
            var length: UInt32 = 0
            write(&bytes, &length)
            free(bytes)
        }
    }
    switch which {
    case .readBinary: return reading(binary) { plist_from_bin($0, $1, $2) }
    case .writeXML: return writing({ plist_to_xml(tree, $0, $1) }, freeing: { plist_to_xml_free($0) })
    case .writeBinary: return writing({ plist_to_bin(tree, $0, $1) }, freeing: { plist_to_bin_free($0) })
    case .readXML: return reading(xml) { plist_from_xml($0, $1, $2) }
    }
}

func foundation(_ which: Case, binary: [UInt8], xml: [UInt8], runs: Int) throws -> Double {
    func best(_ body: () throws -> Void) rethrows -> Double { try bestOf(runs, body) }
    let binary = Data(binary)
    let xml = Data(xml)
    let object = try PropertyListSerialization.propertyList(from: binary, format: nil)
    switch which {
    case .readBinary: return try best { _ = try PropertyListSerialization.propertyList(from: binary, format: nil) }
    case .writeXML:
        return try best { _ = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0) }
    case .writeBinary:
        return try best {
            _ = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        }
    case .readXML: return try best { _ = try PropertyListSerialization.propertyList(from: xml, format: nil) }
    }
}

/// Runs `command` with `arguments` and returns its standard output, or nil when it
/// cannot run or fails.
func output(of command: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = command
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return nil }
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return process.terminationStatus == 0 ? text : nil
}

/// The best times, in milliseconds, of a peer run as a child process on `files`: it gets
/// the binary file, the XML file and the run count, and prints one time per case, in
/// `Case` order. nil when it cannot run.
func childPeer(_ command: [String], on files: WrittenFiles, runs: Int) -> [Case: Double]? {
    let times = output(of: command + [files.binaryURL.path, files.xmlURL.path, String(runs)])?
        .split(separator: "\n").compactMap { Double($0) }
    guard let times, times.count == Case.allCases.count else { return nil }
    return Dictionary(uniqueKeysWithValues: zip(Case.allCases, times))
}

let arguments = CommandLine.arguments
if arguments.count == 6, arguments[1] == "--time", let runs = Int(arguments[5]) {
    let binary = [UInt8](try Data(contentsOf: URL(fileURLWithPath: arguments[3])))
    let xml = [UInt8](try Data(contentsOf: URL(fileURLWithPath: arguments[4])))
    for which in Case.allCases {
        let time: Double? =
            switch arguments[2] {
            case "keepsake": try keepsake(which, binary: binary, xml: xml, runs: runs)
            case "libplist": libplist(which, binary: binary, xml: xml, runs: runs)
            case "foundation": try foundation(which, binary: binary, xml: xml, runs: runs)
            default: nil
            }
        guard let time else { exit(2) }
        print(time)
    }
    exit(0)
}
let runs = arguments.count > 1 ? Int(arguments[1]) ?? 7 : 7

let plistlibTimer = """
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
/// Reads a binary plist and writes it again as plistlib writes binary and XML.
let plistlibWriter = """
    import plistlib, sys
    value = plistlib.loads(open(sys.argv[1], 'rb').read())
    open(sys.argv[2], 'wb').write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False))
    open(sys.argv[3], 'wb').write(plistlib.dumps(value, fmt=plistlib.FMT_XML, sort_keys=False))
    """
let rustPeer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Peers/rust-plist/target/release/rust-plist-peer").path

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-peers-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

let value = HomepwnerRecords.value(count: 100_000)
let object = HomepwnerRecords.foundationObject(count: 100_000)
var writers = [
    try WrittenFiles(
        writer: "Foundation",
        binary: Array(try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)),
        xml: Array(try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)),
        in: folder)
]
let plistlibBinary = folder.appendingPathComponent("plistlib-written.bplist")
let plistlibXML = folder.appendingPathComponent("plistlib-written.xml")
if output(of: ["python3", "-c", plistlibWriter, writers[0].binaryURL.path, plistlibBinary.path, plistlibXML.path])
    != nil
{
    writers.append(
        try WrittenFiles(
            writer: "plistlib", binary: Array(try Data(contentsOf: plistlibBinary)),
            xml: Array(try Data(contentsOf: plistlibXML)), in: folder))
} else {
    print("plistlib's files are left out: python3 could not write them")
}
writers.append(
    try WrittenFiles(
        writer: "Keepsake", binary: try PropertyListWriter.binary.write(value),
        xml: try PropertyListWriter.xml.write(value), in: folder))

func cell(_ milliseconds: Double?, bytes: Int) -> String {
    guard let milliseconds else { return "—" }
    return String(format: "%.1f ms, %.0f MB/s", milliseconds, Double(bytes) / milliseconds / 1_000)
}

let itself = Bundle.main.executablePath ?? arguments[0]
var sides: [(name: String, command: [String])] = [
    ("keepsake", [itself, "--time", "keepsake"]), ("libplist", [itself, "--time", "libplist"]),
]
if FileManager.default.isExecutableFile(atPath: rustPeer) { sides.append(("Rust plist", [rustPeer])) }
sides += [("plistlib", ["python3", "-c", plistlibTimer]), ("foundation", [itself, "--time", "foundation"])]
let times = writers.map { files in
    Dictionary(uniqueKeysWithValues: sides.map { ($0.name, childPeer($0.command, on: files, runs: runs)) })
}
print(
    "| case (best of \(runs), frees timed) | writer's file | Keepsake | libplist | Rust plist | plistlib | Foundation "
        + "| best peer / Keepsake |")
print("|:--|:--|--:|--:|--:|--:|--:|--:|")
for which in Case.allCases {
    for (files, sideTimes) in zip(writers, times) {
        let bytes = files.size(for: which)
        let time = { (side: String) in sideTimes[side]??[which] }
        guard let ours = time("keepsake") else { fatalError("Keepsake's side did not run") }
        let peers = ["libplist", "Rust plist", "plistlib", "foundation"].map(time)
        let bestPeer = peers.compactMap { $0 }.min()!
        let file = "\(files.writer), " + String(format: "%.1f MB, %llu objects", Double(bytes) / 1e6, files.objectCount)
        print(
            "| \(which.rawValue) | \(file) | \(cell(ours, bytes: bytes)) | "
                + peers.map { cell($0, bytes: bytes) }.joined(separator: " | ") + " | "
                + String(format: "%.2f×", bestPeer / ours) + " |")
    }
}
