import Foundation
import ZIPFoundation

/// Reads one ZIP entry's data with a hard end, for the restore.
///
/// ZIPFoundation's `Archive.extract` inflates on Linux by reading the archive file in
/// buffer-size chunks until the deflate stream says it has ended, ignoring the
/// entry's compressed size; a stream that never ends (a stored block announcing more
/// bytes than the file holds) makes it read empty chunks at end of file forever. So
/// the restore finds each entry's data itself (the local header offset from the
/// central directory, the data after the local header's name and extra field) and
/// feeds `Data.decompress` from a provider that stops at the compressed size:
/// asking for more is a truncated entry, not a loop.
///
/// The central directory is walked in the order ZIPFoundation's iterator walks it,
/// so the n-th location belongs to the n-th `Entry`.
struct ZipEntryData {
    private let handle: FileHandle
    private let path: String
    private var directoryOffset: UInt64
    private var remainingEntries: UInt64

    /// Where one entry's data starts, and how it is stored.
    struct Location {
        var dataOffset: UInt64
        var method: UInt16
    }

    init(url: URL) throws(SandboxError) {
        path = url.path
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw SandboxError(.invalidBackup, "cannot open the archive: \(error)", path: url.path)
        }
        (directoryOffset, remainingEntries) = (0, 0)
        (directoryOffset, remainingEntries) = try centralDirectory()
    }

    func close() { try? handle.close() }

    // MARK: Central directory

    private func centralDirectory() throws(SandboxError) -> (offset: UInt64, count: UInt64) {
        let size = try fileSize()
        let tailLength = min(size, 22 + 0xFFFF)
        let tail = try read(at: size - tailLength, count: Int(tailLength))
        guard let end = Self.lastIndex(of: [0x50, 0x4B, 0x05, 0x06], in: tail), end + 22 <= tail.count else {
            throw corrupt("no end of central directory record")
        }
        var count = UInt64(tail.le16(end + 10))
        var offset = UInt64(tail.le32(end + 16))
        if count == 0xFFFF || offset == 0xFFFF_FFFF {
            // ZIP64: the locator sits just before the record and points at the ZIP64 record.
            let locatorStart = size - tailLength + UInt64(end)
            guard locatorStart >= 20 else { throw corrupt("no ZIP64 end of central directory locator") }
            let locator = try read(at: locatorStart - 20, count: 20)
            guard locator.le32(0) == 0x0706_4B50 else { throw corrupt("no ZIP64 end of central directory locator") }
            let record = try read(at: locator.le64(8), count: 56)
            guard record.le32(0) == 0x0606_4B50 else { throw corrupt("no ZIP64 end of central directory record") }
            count = record.le64(32)
            offset = record.le64(48)
        }
        return (offset, count)
    }

    /// The data location of the next entry in central-directory order.
    mutating func next(for entry: Entry) throws(SandboxError) -> Location {
        guard remainingEntries > 0 else { throw corrupt("the central directory ends early", entry.path) }
        let header = try read(at: directoryOffset, count: 46)
        guard header.le32(0) == 0x0201_4B50 else { throw corrupt("bad central directory header", entry.path) }
        let nameLength = Int(header.le16(28))
        let extraLength = Int(header.le16(30))
        let commentLength = Int(header.le16(32))
        var localOffset = UInt64(header.le32(42))
        if localOffset == 0xFFFF_FFFF {
            // In the ZIP64 extra field, after the sizes that overflowed too.
            let extra = try read(at: directoryOffset + 46 + UInt64(nameLength), count: extraLength)
            var skip = 0
            if header.le32(24) == 0xFFFF_FFFF { skip += 8 }
            if header.le32(20) == 0xFFFF_FFFF { skip += 8 }
            guard let value = Self.zip64Field(in: extra, skipping: skip) else {
                throw corrupt("ZIP64 offset missing", entry.path)
            }
            localOffset = value
        }
        directoryOffset += 46 + UInt64(nameLength + extraLength + commentLength)
        remainingEntries -= 1
        let local = try read(at: localOffset, count: 30)
        guard local.le32(0) == 0x0403_4B50 else { throw corrupt("bad local header", entry.path) }
        let dataOffset = localOffset + 30 + UInt64(local.le16(26)) + UInt64(local.le16(28))
        return Location(dataOffset: dataOffset, method: local.le16(8))
    }

    private static func zip64Field(in extra: Data, skipping skip: Int) -> UInt64? {
        var index = 0
        while index + 4 <= extra.count {
            let id = extra.le16(index)
            let length = Int(extra.le16(index + 2))
            if id == 1 {
                guard skip + 8 <= length, index + 4 + skip + 8 <= extra.count else { return nil }
                return extra.le64(index + 4 + skip)
            }
            index += 4 + length
        }
        return nil
    }

    // MARK: Data

    /// Streams the entry's uncompressed bytes to `consumer` in chunks of at most
    /// `chunkSize`, never reading past its compressed size; returns their CRC-32.
    func extract(
        _ entry: Entry, at location: Location, chunkSize: Int, consumer: (Data) throws -> Void
    ) throws -> CRC32 {
        var position = location.dataOffset
        var remaining = entry.compressedSize
        let provider: (Int) throws -> Data = { count in
            guard remaining > 0 else { throw SandboxError(.invalidBackup, "the data ends early", path: entry.path) }
            let chunk = try read(at: position, count: Int(min(UInt64(count), remaining)))
            guard !chunk.isEmpty else { throw SandboxError(.invalidBackup, "the data ends early", path: entry.path) }
            position += UInt64(chunk.count)
            remaining -= UInt64(chunk.count)
            return chunk
        }
        switch location.method {
        case CompressionMethod.none.rawValue:
            var checksum = CRC32(0)
            while remaining > 0 {
                let chunk = try provider(chunkSize)
                checksum = chunk.crc32(checksum: checksum)
                try consumer(chunk)
            }
            return checksum
        case CompressionMethod.deflate.rawValue:
            // ZIPFoundation hands zlib `count` input bytes whatever the chunk holds, so
            // the entry's last, shorter chunk is padded with zeros: zlib never reads past
            // it. A stream that has not ended by then meets the zeros, a stored block
            // whose lengths disagree, and fails.
            return try Data.decompress(
                size: Int64(clamping: entry.compressedSize), bufferSize: chunkSize, skipCRC32: false,
                provider: { _, count in
                    var chunk = try provider(count)
                    if chunk.count < count { chunk.append(Data(count: count - chunk.count)) }
                    return chunk
                }, consumer: consumer)
        default:
            throw SandboxError(.invalidBackup, "unsupported compression method \(location.method)", path: entry.path)
        }
    }

    // MARK: Reading

    private func fileSize() throws(SandboxError) -> UInt64 {
        do {
            return try handle.seekToEnd()
        } catch {
            throw SandboxError(.invalidBackup, "cannot read the archive: \(error)", path: path)
        }
    }

    private func read(at offset: UInt64, count: Int) throws(SandboxError) -> Data {
        do {
            try handle.seek(toOffset: offset)
            return try handle.read(upToCount: count) ?? Data()
        } catch {
            throw SandboxError(.invalidBackup, "cannot read the archive: \(error)", path: path)
        }
    }

    private func corrupt(_ reason: String, _ entry: String? = nil) -> SandboxError {
        SandboxError(.invalidBackup, "corrupt archive: \(reason)", path: entry ?? path)
    }

    private static func lastIndex(of signature: [UInt8], in data: Data) -> Int? {
        let bytes = [UInt8](data)
        guard bytes.count >= signature.count else { return nil }
        for index in stride(from: bytes.count - signature.count, through: 0, by: -1)
        where bytes[index..<index + signature.count].elementsEqual(signature) {
            return index
        }
        return nil
    }
}

extension Data {
    /// Little-endian integers at an offset from the start; zero past the end (the
    /// callers check signatures and lengths first).
    fileprivate func le16(_ offset: Int) -> UInt16 { UInt16(truncatingIfNeeded: littleEndian(offset, 2)) }
    fileprivate func le32(_ offset: Int) -> UInt32 { UInt32(truncatingIfNeeded: littleEndian(offset, 4)) }
    fileprivate func le64(_ offset: Int) -> UInt64 { littleEndian(offset, 8) }

    private func littleEndian(_ offset: Int, _ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<width).reversed() {
            let position = startIndex + offset + index
            let byte = position < endIndex ? self[position] : 0
            value = value << 8 | UInt64(byte)
        }
        return value
    }
}
