import Foundation

/// The bytes of a journal file.
///
/// ```
/// header  "KSJOURN2"  copy  copy
/// copy    checkpoint length (u64 LE)  checkpoint CRC-32C (u32 LE)  CRC-32C of "KSJOURN2", length, checksum (u32 LE)
/// record  "KSJR"  payload length (u32 LE)  sequence (u64 LE)  CRC-32C of length, sequence, payload (u32 LE)  payload
/// ```
///
/// The header names the checkpoint the records apply to, so a journal left behind by a
/// crash between writing a checkpoint and starting the next journal is recognised as
/// already folded in. It names it twice, each copy with a checksum that covers the
/// expected magic rather than the bytes read: a damaged byte anywhere in the header
/// leaves one copy, or the other, that still checks out, and the records after it are
/// replayed. Each record carries its length and a checksum, as SQLite's WAL frames and
/// PostgreSQL's WAL records do; the magic lets a reader find the next whole record
/// after a damaged one.
///
/// Journals written before (`"KSJOURN1"`, one copy whose checksum covers the magic, 24
/// bytes) are read, and rewritten in this format when opened.
enum JournalFormat {
    static let headerMagic = Array("KSJOURN2".utf8)
    static let recordMagic = Array("KSJR".utf8)
    static let headerSize = 40
    static let recordHeaderSize = 20

    /// The format of the 0.2.0 release: magic, length, checksum, CRC of the 20 bytes before.
    private static let firstMagic = Array("KSJOURN1".utf8)
    private static let firstHeaderSize = 24

    static func header(following checkpoint: CheckpointDigest) -> [UInt8] {
        var copy: [UInt8] = []
        copy.appendLittleEndian(checkpoint.length)
        copy.appendLittleEndian(checkpoint.checksum)
        copy.appendLittleEndian(copyChecksum(copy[...]))
        return headerMagic + copy + copy
    }

    /// The checksum of one copy's 12 bytes of fields, with the magic they belong to.
    private static func copyChecksum(_ fields: ArraySlice<UInt8>) -> UInt32 {
        var crc = CRC32C()
        headerMagic.withUnsafeBytes { crc.update($0) }
        fields.withUnsafeBytes { crc.update($0) }
        return crc.value
    }

    static func appendRecord(sequence: UInt64, payload: Data, to bytes: inout [UInt8]) {
        var lengthAndSequence: [UInt8] = []
        lengthAndSequence.appendLittleEndian(UInt32(payload.count))
        lengthAndSequence.appendLittleEndian(sequence)
        var crc = CRC32C()
        lengthAndSequence.withUnsafeBytes { crc.update($0) }
        payload.withUnsafeBytes { crc.update($0) }
        bytes.append(contentsOf: recordMagic)
        bytes.append(contentsOf: lengthAndSequence)
        bytes.appendLittleEndian(crc.value)
        bytes.append(contentsOf: payload)
    }

    /// A header that names its checkpoint, as read.
    enum HeaderState {
        case intact
        /// One copy (or the magic) is damaged: opening writes the header again.
        case repaired
        /// The 0.2.0 format: opening rewrites the journal in this one.
        case firstFormat
    }

    /// What a scan of a journal file found.
    struct Scan {
        /// The checkpoint the header names; nil when the header is damaged beyond
        /// both copies, or missing.
        var checkpoint: CheckpointDigest?
        /// Where the records start: after this format's header, or the 0.2.0 one's.
        var headerLength = headerSize
        /// What opening must do about the header.
        var header = HeaderState.intact
        var records: [(sequence: UInt64, payload: Data, range: Range<Int>)] = []
        /// Damaged bytes followed by whole records: kept aside, never dropped.
        var corrupt: [Range<Int>] = []
        /// Where the last whole record ends: a torn write after it is cut off.
        var end = 0
    }

    /// Reads every whole record of `bytes`. A record that does not check out is
    /// corruption when a whole record follows it (the range up to that record is
    /// reported), and a torn tail otherwise (``Scan/end`` stops before it).
    ///
    /// Looking for the next whole record after a damaged one checks a checksum at every
    /// magic found; a file made of magics and lengths reaching its end would make that
    /// quadratic. The checksums checked are bounded by a budget of a few times the
    /// file's size: past it, the rest of the file is reported as damaged (kept, never
    /// dropped) and the scan stops.
    ///
    /// With no header that checks out, the records are still scanned, from where the
    /// shorter header of either format ends, so that the caller can tell a journal that
    /// holds records from one that holds none.
    static func scan(_ bytes: [UInt8]) -> Scan {
        var scan = Scan()
        if let header = readHeader(bytes) {
            scan.checkpoint = header.checkpoint
            scan.header = header.state
            scan.headerLength = header.state == .firstFormat ? firstHeaderSize : headerSize
        } else {
            scan.headerLength = firstHeaderSize
        }
        var budget = 4 * bytes.count + (1 << 20)
        var offset = scan.headerLength
        var lastSequence: UInt64 = 0
        while offset < bytes.count {
            if let record = readRecord(bytes, at: offset, after: lastSequence, budget: &budget) {
                scan.records.append((record.sequence, record.payload, offset..<record.end))
                lastSequence = record.sequence
                offset = record.end
                continue
            }
            guard budget >= 0, let next = nextRecord(bytes, after: offset, lastSequence: lastSequence, budget: &budget)
            else {
                if budget < 0 { scan.corrupt.append(offset..<bytes.count) }
                break
            }
            scan.corrupt.append(offset..<next)
            offset = next
        }
        scan.end = scan.records.last?.range.upperBound ?? scan.headerLength
        return scan
    }

    /// The checkpoint the header names: from either copy that checks out, whatever the
    /// magic's bytes read (two copies that check out and differ were written by no
    /// journal, and name nothing); else from a 0.2.0 header that checks out whole.
    private static func readHeader(_ bytes: [UInt8]) -> (checkpoint: CheckpointDigest, state: HeaderState)? {
        if bytes.count >= headerSize {
            let copies = [8, 24].map { offset -> CheckpointDigest? in
                guard copyChecksum(bytes[offset..<offset + 12]) == bytes.littleEndian(UInt32.self, at: offset + 12)
                else { return nil }
                return CheckpointDigest(
                    length: bytes.littleEndian(UInt64.self, at: offset),
                    checksum: bytes.littleEndian(UInt32.self, at: offset + 8))
            }
            switch (copies[0], copies[1]) {
            case (let first?, let second?) where first == second:
                return (first, bytes[0..<8].elementsEqual(headerMagic) ? .intact : .repaired)
            case (let first?, nil): return (first, .repaired)
            case (nil, let second?): return (second, .repaired)
            default: break
            }
        }
        guard bytes.count >= firstHeaderSize, bytes[0..<8].elementsEqual(firstMagic) else { return nil }
        let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<20])) }
        guard crc == bytes.littleEndian(UInt32.self, at: 20) else { return nil }
        let checkpoint = CheckpointDigest(
            length: bytes.littleEndian(UInt64.self, at: 8), checksum: bytes.littleEndian(UInt32.self, at: 16))
        return (checkpoint, .firstFormat)
    }

    private static func readRecord(_ bytes: [UInt8], at offset: Int, after lastSequence: UInt64, budget: inout Int)
        -> (sequence: UInt64, payload: Data, end: Int)?
    {
        guard bytes.count - offset >= recordHeaderSize, bytes[offset..<offset + 4].elementsEqual(recordMagic) else {
            return nil
        }
        let length = Int(bytes.littleEndian(UInt32.self, at: offset + 4))
        let sequence = bytes.littleEndian(UInt64.self, at: offset + 8)
        let stored = bytes.littleEndian(UInt32.self, at: offset + 16)
        let payloadStart = offset + recordHeaderSize
        guard sequence > lastSequence, length <= bytes.count - payloadStart else { return nil }
        guard length <= budget else {
            budget = -1
            return nil
        }
        budget -= length
        var crc = CRC32C()
        bytes.withUnsafeBytes { raw in
            crc.update(UnsafeRawBufferPointer(rebasing: raw[offset + 4..<offset + 16]))
            crc.update(UnsafeRawBufferPointer(rebasing: raw[payloadStart..<payloadStart + length]))
        }
        guard crc.value == stored else { return nil }
        return (sequence, Data(bytes[payloadStart..<payloadStart + length]), payloadStart + length)
    }

    /// The offset of the next whole record after a damaged one at `offset`, if any.
    private static func nextRecord(_ bytes: [UInt8], after offset: Int, lastSequence: UInt64, budget: inout Int)
        -> Int?
    {
        var candidate = offset + 1
        while candidate + recordHeaderSize <= bytes.count, budget >= 0 {
            guard let found = bytes[candidate...].firstRange(of: recordMagic) else { return nil }
            if readRecord(bytes, at: found.lowerBound, after: lastSequence, budget: &budget) != nil {
                return found.lowerBound
            }
            candidate = found.lowerBound + 1
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    fileprivate func littleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
}
