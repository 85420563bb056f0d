import Foundation
import Locking
import PropertyList
import TestSupport
import Testing

@testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

/// Files opened to read pieces at any offset, as the lazy binary document reads them.
final class RandomAccessFileTests {
    let scratch = TemporaryDirectory("keepsake-pread")
    var directory: URL { scratch.url }

    /// Many records, so that the file spans many pages.
    static let records: PropertyListValue = .array(
        (0..<5_000).map { ["name": .string("item \($0)"), "valueInDollars": .integer(Int64($0))] })

    func write(_ value: PropertyListValue, to name: String = "Items.plist") throws -> (URL, [UInt8]) {
        let bytes = try PropertyListWriter.binary.write(value)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return (url, bytes)
    }

    @Test func aFileReadsAsItsBytesDo() throws {
        let (url, bytes) = try write(Self.records)
        let file = try FileSystem.default.openForReading(url)
        #expect(file.count == bytes.count)
        var middle = [UInt8](repeating: 0, count: 10_000)
        try middle.withUnsafeMutableBytes { try file.read(into: $0, at: 1_234) }
        #expect(middle == Array(bytes[1_234..<11_234]))
        let plist = try BinaryPropertyList(reading: file)
        #expect(try plist.topValue() == Self.records)
        #expect(try plist.value(at: "4321.name") == "item 4321")
    }

    @Test func anEmptyFileHasNoBytesAndIsNoPlist() throws {
        let (url, _) = try write([], to: "empty")
        try Data().write(to: url)
        let file = try FileSystem.default.openForReading(url)
        #expect(file.count == 0)
        let error = #expect(throws: PropertyListError.self) { try BinaryPropertyList(reading: file) }
        #expect(error?.code == .invalidHeader)
    }

    @Test func aDirectoryOrAMissingFileIsAnError() throws {
        let directoryError = #expect(throws: SandboxError.self) {
            try FileSystem.default.openForReading(self.directory)
        }
        #expect(directoryError?.errno == EISDIR)
        let missing = #expect(throws: SandboxError.self) {
            try FileSystem.default.openForReading(self.directory.appendingPathComponent("nothing"))
        }
        #expect(missing?.errno == ENOENT)
    }

    /// A FIFO is refused at once, without waiting for a writer to open it.
    @Test func aFIFOIsRefusedWithoutWaiting() throws {
        let fifo = directory.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let error = #expect(throws: SandboxError.self) { try FileSystem.default.openForReading(fifo) }
        #expect(error?.code == .notRegularFile)
    }

    /// What a document has read is its own: the file rewritten in place afterwards does
    /// not change those answers, and what it reads afterwards is checked as ever.
    @Test func aFileRewrittenUnderItsDocumentDoesNotChangeWhatItRead() throws {
        let (url, bytes) = try write(Self.records)
        let plist = try BinaryPropertyList(reading: FileSystem.default.openForReading(url))
        #expect(try plist.value(at: "17") == Self.records.value(at: "17"))
        try Data(repeating: 0xFF, count: bytes.count).write(to: url)
        #expect(try plist.value(at: "17") == Self.records.value(at: "17"))
        // The pages read now hold 0xFF: a reference past the object table, or a marker
        // that starts no object, whichever of them the record's path meets first.
        let error = #expect(throws: PropertyListError.self) { try plist.value(at: "4321") }
        #expect(error?.code == .invalidObject || error?.code == .referenceOutOfRange)
    }

    /// A file shortened under its document: reading what is gone is a typed error.
    @Test func aFileShortenedUnderItsDocumentGivesReadFailed() throws {
        let (url, _) = try write(Self.records)
        let plist = try BinaryPropertyList(reading: FileSystem.default.openForReading(url))
        #expect(truncate(url.path, 100) == 0)
        let error = #expect(throws: PropertyListError.self) { try plist.value(at: "2500.name") }
        #expect(error?.code == .readFailed)
        #expect(error?.message.contains(url.path) == true, "the message names the file: \(error?.message ?? "")")
    }

    /// A failed read is a typed error naming the file; an interrupted one is retried.
    @Test func aFailedReadIsATypedErrorAndAnInterruptedOneIsRetried() throws {
        let (url, _) = try write(Self.records)
        let failing = Locked<Int32?>(nil)
        var calls = SystemCalls.live
        calls.pread = { fd, buffer, offset throws(Errno) in
            if let code = failing.withLock({ code in
                defer { if code == EINTR { code = nil } }
                return code
            }) {
                throw Errno(code)
            }
            return try SystemCalls.live.pread(fd, buffer, offset)
        }
        let file = try FileSystem(system: calls).openForReading(url)
        failing.withLock { $0 = EINTR }
        let plist = try BinaryPropertyList(reading: file)
        failing.withLock { $0 = EIO }
        let error = #expect(throws: PropertyListError.self) { try plist.value(at: "2500.name") }
        #expect(error?.code == .readFailed)
        var byte: UInt8 = 0
        let direct = #expect(throws: SandboxError.self) {
            try withUnsafeMutableBytes(of: &byte) { try file.read(into: $0, at: 0) }
        }
        #expect(direct?.code == .ioError)
        #expect(direct?.path == url.path)
        failing.withLock { $0 = nil }
        #expect(try plist.value(at: "2500.name") == "item 2500")
    }

    /// The file is closed with the last reference to it, not before: a page not read
    /// yet is still read after opening.
    @Test func theFileStaysOpenAsLongAsItsDocument() throws {
        let (url, _) = try write(Self.records)
        let closed = Locked(0)
        var calls = SystemCalls.live
        calls.close = { fd throws(Errno) in
            closed.withLock { $0 += 1 }
            try SystemCalls.live.close(fd)
        }
        var plist: BinaryPropertyList? = try BinaryPropertyList(reading: FileSystem(system: calls).openForReading(url))
        let closedAfterOpening = closed.withLock { $0 }
        #expect(try plist?.value(at: "4321.name") == "item 4321")
        #expect(closed.withLock { $0 } == closedAfterOpening)
        plist = nil
        #expect(closed.withLock { $0 } == closedAfterOpening + 1)
    }
}
