import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AppSandbox

#if canImport(Glibc)
import Glibc
#endif

/// Hostile and broken backups, and failures in the middle of a restore: each must
/// leave the container exactly as it was (every file's bytes, every folder, no
/// staging folder left behind) and name the entry at fault.
@Suite(
    "Restore is all or nothing under attack",
    .enabled(if: Python.executable != nil, "needs python3 to forge archives")
)
struct RestoreAttackTests {
    /// A folder of each test's own (a suite instance is made per test), removed after it.
    let folder = TemporaryDirectory("keepsake-tests")

    /// A container with something in both restored directories, plus Caches and tmp.
    static func container(system: SystemCalls = .live) throws -> AppContainer {
        let temporary = try AppContainer.temporary(identifier: "com.example.Attacked")
        let container = AppContainer(identifier: temporary.identifier, url: temporary.url, system: system)
        let documents = container.directory(.documents)
        try documents.write(Data("old a".utf8), to: "a.txt")
        try documents.write(Data("old b".utf8), to: "b.txt")
        try documents.createDirectory("photos")
        try documents.write(Data(repeating: 9, count: 5000), to: "photos/1.jpg")
        try documents.setExcludedFromBackup(true, for: "photos")
        try container.directory(.preferences).write(Data("<plist/>".utf8), to: "com.example.Attacked.plist")
        try container.directory(.caches).write(Data("thumb".utf8), to: "t.png")
        try container.directory(.temporary).write(Data("part".utf8), to: "upload.part")
        return container
    }

    /// Every item below the container root, hidden ones included: kind, permission
    /// bits and, for files, a hash and the size of the content.
    static func snapshot(_ container: AppContainer) throws -> [String: String] {
        var result: [String: String] = [:]
        let root = container.url.path
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0 else { throw CocoaError(.fileReadUnknown) }
            let mode = String(info.st_mode, radix: 8)
            if info.st_mode & S_IFMT == S_IFREG {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                result[relative] = "file \(mode) \(data.count) \(fnv1a(data))"
            } else {
                result[relative] = "other \(mode)"
            }
        }
        return result
    }

    static func fnv1a(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// Restores `zip` into `given` (or a fresh container, removed after), expecting it
    /// to fail; checks the container did not change and returns the error.
    static func expectRefused(
        _ zip: URL, into given: AppContainer? = nil, limits: SandboxBackup.Limits = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> SandboxError? {
        let container = try given ?? container()
        defer { if given == nil { try? container.destroy() } }
        let before = try snapshot(container)
        let error = #expect(throws: SandboxError.self, sourceLocation: sourceLocation) {
            try SandboxBackup.restore(from: zip, into: container, limits: limits)
        }
        let after = try snapshot(container)
        #expect(after == before, "the container changed", sourceLocation: sourceLocation)
        #expect(
            !after.keys.contains { $0.hasPrefix(".keepsake-restore-") }, "staging left behind",
            sourceLocation: sourceLocation)
        return error
    }

    /// Runs a Python script that forges `zip`; `sys.argv[1]` is its path.
    static func forge(_ zip: URL, _ script: String) throws {
        guard BackupTests.runPython(script, [zip.path]) != nil else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Python's own verdict on an archive: the first bad entry, "ok", or nil.
    static func pythonTestZip(_ zip: URL) -> String? {
        BackupTests.runPython(
            "import sys, zipfile\nprint(zipfile.ZipFile(sys.argv[1]).testzip() or 'ok', end='')", [zip.path])
    }

    @Test("An entry failing its CRC-32 after good entries is refused, nothing restored")
    func badChecksum() throws {
        let zip = folder.file("bad-crc.zip")
        try Self.forge(
            zip,
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
                z.writestr("Documents/a.txt", "new a")
                z.writestr("Documents/b.txt", "BBBBBBBBBBBBBBBB")
                z.writestr("Documents/c.txt", "new c")
            data = bytearray(open(sys.argv[1], "rb").read())
            data[data.find(b"BBBBBBBB") + 3] ^= 1   # one bit of the stored content
            open(sys.argv[1], "wb").write(data)
            """)
        #expect(Self.pythonTestZip(zip) == "Documents/b.txt", "the forged archive is bad where intended")
        let error = try Self.expectRefused(zip)
        #expect(error?.code == .invalidBackup)
        #expect(error?.path == "Documents/b.txt")
        #expect(error?.message.contains("CRC-32") == true)
    }

    @Test("An entry whose data ends before its declared size is refused, nothing restored")
    func truncatedEntry() throws {
        let zip = folder.file("truncated.zip")
        // A stored entry declaring 100 000 bytes (and their CRC) of which only 1 000
        // are in the file: the archive ends first.
        try Self.forge(
            zip,
            """
            import struct, sys, zlib
            entries = [("Documents/a.txt", b"new a", 5), ("Library/big.bin", b"x" * 1000, 100000)]
            out, central = bytearray(), bytearray()
            for name, data, declared in entries:
                crc = zlib.crc32(b"x" * declared) if declared != len(data) else zlib.crc32(data)
                offset = len(out)
                header = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0, crc, declared, declared,
                                     len(name), 0)
                out += header + name.encode() + data
                central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 0, 0, 0, crc, declared,
                                       declared, len(name), 0, 0, 0, 0, 0, offset) + name.encode()
            start = len(out)
            out += central + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(entries), len(entries),
                                         len(central), start, 0)
            open(sys.argv[1], "wb").write(out)
            """)
        let error = try Self.expectRefused(zip)
        #expect(error?.code == .invalidBackup)
        #expect(error?.path == "Library/big.bin")
    }

    @Test(
        "A deflate stream running past its entry's data to the end of the file is refused, not looped on",
        .timeLimit(.minutes(1)))
    func endlessDeflateStream() throws {
        let zip = folder.file("endless.zip")
        // A non-final stored deflate block announcing 65 535 bytes with 10 present:
        // read in buffer-size chunks to end of file, it never ends (ZIPFoundation's
        // own extract spins on empty reads).
        try Self.forge(
            zip,
            """
            import struct, sys
            name = b"Documents/endless.bin"
            data = bytes([0x00]) + struct.pack("<HH", 65535, 0) + b"0123456789"
            out = bytearray(struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0, 0, len(data), 65535,
                                        len(name), 0) + name + data)
            central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 8, 0, 0, 0, len(data), 65535,
                                  len(name), 0, 0, 0, 0, 0, 0) + name
            start = len(out)
            out += central + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(central), start, 0)
            open(sys.argv[1], "wb").write(out)
            """)
        let error = try Self.expectRefused(zip)
        #expect(error?.code == .invalidBackup)
        #expect(error?.path == "Documents/endless.bin")
    }

    @Test("A file cut short (its central directory lost) is refused")
    func truncatedFile() throws {
        let source = try Self.container()
        defer { try? source.destroy() }
        let zip = folder.file("cut.zip")
        try SandboxBackup.write(container: source, to: zip)
        let data = try Data(contentsOf: zip)
        try data.prefix(data.count * 2 / 3).write(to: zip)
        #expect(try Self.expectRefused(zip)?.code == .invalidBackup)
    }

    @Test(
        "A file where the container has a folder, or the other way round, is refused",
        arguments: [
            // (entries, the entry at fault): a file over the folder Documents/photos,
            // a folder over the file Documents/b.txt, a file below the file b.txt.
            (["Documents/a.txt", "Documents/photos"], "Documents/photos"),
            (["Documents/a.txt", "Documents/b.txt/"], "Documents/b.txt"),
            (["Documents/a.txt", "Documents/b.txt/inside"], "Documents/b.txt/inside"),
        ])
    func fileVersusFolder(entries: [String], culprit: String) throws {
        let zip = folder.file("clash.zip")
        try BackupTests.makeZip(zip, entries: entries)
        let error = try Self.expectRefused(zip)
        #expect(error?.path == culprit)
        #expect([.isADirectory, .notADirectory, .fileExists].contains(error?.code))
    }

    /// A 64 MiB entry of zeros: deflated to about 64 KiB.
    static func forgeBomb(_ zip: URL, declaring declared: Int? = nil) throws {
        try forge(
            zip,
            """
            import struct, sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                with z.open("Documents/zeros.bin", "w", force_zip64=False) as f:
                    for _ in range(64):
                        f.write(bytes(1 << 20))
            declared = \(declared.map(String.init) ?? "None")
            if declared is not None:
                # Lie about the size in the local header and the central directory.
                data = bytearray(open(sys.argv[1], "rb").read())
                local = data.find(b"PK\\x03\\x04")
                struct.pack_into("<I", data, local + 22, declared)
                central = data.find(b"PK\\x01\\x02")
                struct.pack_into("<I", data, central + 24, declared)
                open(sys.argv[1], "wb").write(data)
            """)
    }

    @Test("A ZIP bomb is refused by its compression ratio before anything is written")
    func bombByRatio() throws {
        let zip = folder.file("bomb.zip")
        try Self.forgeBomb(zip)
        let error = try Self.expectRefused(zip)
        #expect(error?.code == .invalidBackup)
        #expect(error?.path == "Documents/zeros.bin")
        #expect(error?.message.contains("ZIP bomb") == true)
    }

    @Test("A ZIP bomb is refused by the total size limit")
    func bombByTotal() throws {
        let zip = folder.file("bomb.zip")
        try Self.forgeBomb(zip)
        let limits = SandboxBackup.Limits(maxTotalBytes: 16 << 20, maxCompressionRatio: 10_000)
        let error = try Self.expectRefused(zip, limits: limits)
        #expect(error?.code == .invalidBackup)
        #expect(error?.message.contains("\(16 << 20) bytes") == true)
    }

    @Test("A ZIP bomb lying about its size is stopped while streaming, after the declared bytes")
    func bombLyingAboutItsSize() throws {
        let zip = folder.file("liar.zip")
        try Self.forgeBomb(zip, declaring: 1000)
        // Its declared ratio is tiny, so only the bytes coming out can tell.
        let error = try Self.expectRefused(zip)
        #expect(error?.code == .invalidBackup)
        #expect(error?.path == "Documents/zeros.bin")
        #expect(error?.message.contains("more than the 1000 bytes its header declares") == true)
    }

    @Test("More entries than the limit are refused")
    func tooManyEntries() throws {
        let zip = folder.file("many.zip")
        try BackupTests.makeZip(zip, entries: (0..<20).map { "Documents/n\($0)" })
        let error = try Self.expectRefused(zip, limits: .init(maxEntries: 10))
        #expect(error?.message.contains("more than 10 entries") == true)
    }

    /// A backup of `source` restoring into a container whose system calls are `calls`.
    static func backupOfChangedContainer() throws -> (TemporaryDirectory, URL) {
        let folder = TemporaryDirectory("keepsake-tests")
        let source = try container()
        defer { try? source.destroy() }
        try source.directory(.documents).write(Data("new a".utf8), to: "a.txt")
        try source.directory(.documents).write(Data("new c".utf8), to: "c.txt")
        try source.directory(.documents).write(Data("new d".utf8), to: "d.txt")
        try source.directory(.preferences).write(Data("<plist>new</plist>".utf8), to: "com.example.Attacked.plist")
        let zip = folder.file("backup.zip")
        try SandboxBackup.write(container: source, to: zip)
        return (folder, zip)
    }

    @Test("A write failing in the middle of a restore leaves the container unchanged")
    func writeFailure() throws {
        let (folder, zip) = try Self.backupOfChangedContainer()
        defer { folder.remove() }
        let armed = Atomic<Bool>(false)
        let writes = Atomic<Int>(0)
        var calls = SystemCalls.live
        calls.write = { fd, buffer throws(Errno) in
            // The third file the restore writes runs out of space.
            if armed.load(ordering: .relaxed), writes.add(1, ordering: .relaxed).newValue == 3 { throw Errno(ENOSPC) }
            return try SystemCalls.live.write(fd, buffer)
        }
        let container = try Self.container(system: calls)
        defer { try? container.destroy() }
        armed.store(true, ordering: .relaxed)
        let error = try Self.expectRefused(zip, into: container)
        #expect(error?.code == .noSpace)
        #expect(error?.path?.hasPrefix("Documents/") == true, "names the entry: \(String(describing: error))")
        #expect(writes.load(ordering: .relaxed) >= 3)
    }

    @Test(
        "A swap or sync failing after the first directory was swapped puts it back",
        arguments: ["exchange", "directoryFsync"])
    func swapFailure(step: String) throws {
        let (folder, zip) = try Self.backupOfChangedContainer()
        defer { folder.remove() }
        let armed = Atomic<Bool>(false)
        let exchanges = Atomic<Int>(0)
        var calls = SystemCalls.live
        calls.renameExchange = { a, from, b, to throws(Errno) in
            // The second top-level directory (Library) fails to swap in.
            if armed.load(ordering: .relaxed), step == "exchange", exchanges.add(1, ordering: .relaxed).newValue == 2 {
                throw Errno(EIO)
            }
            try SystemCalls.live.renameExchange(a, from, b, to)
        }
        calls.fsync = { fd throws(Errno) in
            // The container root's fsync after both swaps fails.
            if armed.load(ordering: .relaxed), step == "directoryFsync",
                let status = try? SystemCalls.live.fstat(fd), status.kind == .directory,
                exchanges.load(ordering: .relaxed) == 2
            {
                exchanges.store(3, ordering: .relaxed)
                throw Errno(EIO)
            }
            try SystemCalls.live.fsync(fd)
        }
        if step == "directoryFsync" {
            let counting = calls.renameExchange
            calls.renameExchange = { a, from, b, to throws(Errno) in
                try counting(a, from, b, to)
                if armed.load(ordering: .relaxed) { exchanges.add(1, ordering: .relaxed) }
            }
        }
        let container = try Self.container(system: calls)
        defer { try? container.destroy() }
        armed.store(true, ordering: .relaxed)
        let error = try Self.expectRefused(zip, into: container)
        #expect(error?.code == .ioError)
        #expect(exchanges.load(ordering: .relaxed) >= 2, "the failure came after the first swap")
    }

    @Test("Without an atomic exchange the restore falls back to two renames and still round-trips")
    func renameFallback() throws {
        let (folder, zip) = try Self.backupOfChangedContainer()
        defer { folder.remove() }
        var calls = SystemCalls.live
        calls.renameExchange = { _, _, _, _ throws(Errno) in throw Errno(ENOSYS) }
        let container = try Self.container(system: calls)
        defer { try? container.destroy() }
        let restored = try SandboxBackup.restore(from: zip, into: container)
        #expect(restored.contains("Documents/d.txt"))
        let documents = container.directory(.documents)
        #expect(try documents.contents(of: "a.txt") == Data("new a".utf8))
        #expect(try documents.contents(of: "b.txt") == Data("old b".utf8), "files not in the backup are kept")
        #expect(try documents.contents(of: "photos/1.jpg").count == 5000)
        #expect(try documents.isExcludedFromBackup("photos"), "folders keep their exclusion mark")
        #expect(try container.directory(.caches).contents(of: "t.png") == Data("thumb".utf8))
        #expect(
            try container.directory(.preferences).contents(of: "com.example.Attacked.plist")
                == Data("<plist>new</plist>".utf8))
        #expect(try !Self.snapshot(container).keys.contains { $0.hasPrefix(".keepsake-") })
    }
}
