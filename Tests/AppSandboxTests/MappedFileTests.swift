import Foundation
import PropertyList
import Synchronization
import Testing

@testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

/// Files mapped read-only and read in place by the lazy binary document.
final class MappedFileTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("keepsake-map-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func aMappedPlistReadsAsItsBytesDo() throws {
        let value: PropertyListValue = ["items": [["name": "Rusty Spork", "valueInDollars": 42]], "owner": "Joe"]
        let bytes = try PropertyListWriter.binary.write(value)
        let url = directory.appendingPathComponent("Items.plist")
        try Data(bytes).write(to: url)
        let mapped = try FileSystem.default.map(url)
        #expect(Array(mapped.bytes) == bytes)
        let plist = try BinaryPropertyList(storage: mapped)
        #expect(try plist.topValue() == value)
        #expect(try plist.value(at: "items.0.name") == "Rusty Spork")
    }

    @Test func anEmptyFileMapsToNoBytesAndIsNoPlist() throws {
        let url = directory.appendingPathComponent("empty")
        try Data().write(to: url)
        let mapped = try FileSystem.default.map(url)
        #expect(mapped.bytes.isEmpty)
        let error = #expect(throws: PropertyListError.self) { try BinaryPropertyList(storage: mapped) }
        #expect(error?.code == .invalidHeader)
    }

    @Test func aDirectoryOrAMissingFileIsAnError() throws {
        let directoryError = #expect(throws: SandboxError.self) { try FileSystem.default.map(self.directory) }
        #expect(directoryError?.errno == EISDIR)
        let missing = #expect(throws: SandboxError.self) {
            try FileSystem.default.map(self.directory.appendingPathComponent("nothing"))
        }
        #expect(missing?.errno == ENOENT)
    }

    /// A FIFO is refused at once, without waiting for a writer to open it.
    @Test func aFIFOIsRefusedWithoutWaiting() throws {
        let fifo = directory.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let error = #expect(throws: SandboxError.self) { try FileSystem.default.map(fifo) }
        #expect(error?.errno == EINVAL)
    }

    /// A mapped file rewritten in place under an open document: reads stay inside the
    /// mapping and fail with a typed error, as for any bad offset.
    @Test func aFileRewrittenUnderItsDocumentGivesErrorsNotStrayReads() throws {
        let url = directory.appendingPathComponent("Items.plist")
        let bytes = try PropertyListWriter.binary.write(["items": ["a", "b", "c"]])
        try Data(bytes).write(to: url)
        let plist = try BinaryPropertyList(storage: FileSystem.default.map(url))
        // Every offset-table entry now points far past the end of the file.
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let objectCount = Int(bytes[trailer + 15])
        let tableOffset = Int(bytes[trailer + 31])
        let handle = try FileHandle(forWritingTo: url)
        try handle.seek(toOffset: UInt64(tableOffset))
        try handle.write(contentsOf: Data(repeating: 0xFF, count: offsetSize * objectCount))
        try handle.close()
        let error = #expect(throws: PropertyListError.self) { try plist.topValue() }
        #expect(error?.code == .referenceOutOfRange)
        #expect(throws: PropertyListError.self) { try plist.value(at: "items.1") }
    }

    /// A failed mmap is a typed error naming the file, and nothing stays open or mapped.
    @Test func aFailedMapIsATypedError() throws {
        let url = directory.appendingPathComponent("Items.plist")
        try Data(PropertyListWriter.binary.write(["a": 1])).write(to: url)
        let openFiles = Mutex<Set<Int32>>([])
        var calls = SystemCalls.live
        calls.openat = { directory, path, flags, mode throws(Errno) in
            let fd = try SystemCalls.live.openat(directory, path, flags, mode)
            openFiles.withLock { _ = $0.insert(fd) }
            return fd
        }
        calls.close = { fd throws(Errno) in
            openFiles.withLock { _ = $0.remove(fd) }
            try SystemCalls.live.close(fd)
        }
        calls.mapReadOnly = { _, _ throws(Errno) in throw Errno(ENOMEM) }
        let error = #expect(throws: SandboxError.self) { try FileSystem(system: calls).map(url) }
        #expect(error?.errno == ENOMEM)
        #expect(error?.path == url.path)
        #expect(openFiles.withLock { $0 }.isEmpty)
    }

    /// The mapping is released with the last reference to it, not before.
    @Test func theMappingLivesAsLongAsItsDocument() throws {
        let url = directory.appendingPathComponent("Items.plist")
        try Data(PropertyListWriter.binary.write(["a": 1])).write(to: url)
        let unmapped = Mutex(0)
        var calls = SystemCalls.live
        calls.unmap = { mapping in
            unmapped.withLock { $0 += 1 }
            SystemCalls.live.unmap(mapping)
        }
        var plist: BinaryPropertyList? = try BinaryPropertyList(storage: FileSystem(system: calls).map(url))
        #expect(unmapped.withLock { $0 } == 0)
        #expect(try plist?.value(at: "a") == 1)
        plist = nil
        #expect(unmapped.withLock { $0 } == 1)
    }
}
