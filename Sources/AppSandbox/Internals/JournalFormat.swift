import Foundation

/// The bytes of a journal file.
///
/// ```
/// header  "KSJOURN1"  checkpoint length (u64 LE)  checkpoint CRC-32C (u32 LE)  header CRC-32C (u32 LE)
/// record  "KSJR"  payload length (u32 LE)  sequence (u64 LE)  CRC-32C of length, sequence, payload (u32 LE)  payload
/// ```
///
/// The header names the checkpoint the records apply to, so a journal left behind by a
/// crash between writing a checkpoint and starting the next journal is recognised as
/// already folded in. Each record carries its length and a checksum, as SQLite's WAL
/// frames and PostgreSQL's WAL records do; the magic lets a reader find the next whole
/// record after a damaged one.
enum JournalFormat {
    static let headerMagic = Array("KSJOURN1".utf8)
    static let recordMagic = Array("KSJR".utf8)
    static let headerSize = 24
    static let recordHeaderSize = 20

    static func header(following checkpoint: CheckpointDigest) -> [UInt8] {
        var bytes = headerMagic
        bytes.appendLittleEndian(checkpoint.length)
        bytes.appendLittleEndian(checkpoint.checksum)
        let crc = bytes.withUnsafeBytes { CRC32C.checksum($0) }
        bytes.appendLittleEndian(crc)
        return bytes
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

    /// What a scan of a journal file found.
    struct Scan {
        /// The checkpoint the header names; nil when the header is damaged or missing.
        var checkpoint: CheckpointDigest?
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
    static func scan(_ bytes: [UInt8]) -> Scan {
        var scan = Scan()
        guard let checkpoint = readHeader(bytes) else { return scan }
        scan.checkpoint = checkpoint
        var budget = 4 * bytes.count + (1 << 20)
        var offset = headerSize
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
        scan.end = scan.records.last?.range.upperBound ?? headerSize
        return scan
    }

    private static func readHeader(_ bytes: [UInt8]) -> CheckpointDigest? {
        guard bytes.count >= headerSize, Array(bytes[0..<8]) == headerMagic else { return nil }
        let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<20])) }
        guard crc == bytes.littleEndian(UInt32.self, at: 20) else { return nil }
        return CheckpointDigest(
            length: bytes.littleEndian(UInt64.self, at: 8), checksum: bytes.littleEndian(UInt32.self, at: 16))
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
