@_spi(Journal) import AppSandbox
import Foundation

/// Where a change made through an ``ItemStore`` sits in its files: the archive its
/// journal follows, and how many of the journal's records lead up to it.
///
/// A sync engine keeps the position of the last change it pushed, its durable cursor.
/// After a restart, ``ItemStore/changes(after:)`` gives the changes after it, read
/// back from the journal, so that the engine pushes those instead of comparing every
/// item.
public struct JournalPosition: Sendable, Hashable, Codable {
    /// The archive's length and CRC-32C (AppSandbox's `CheckpointDigest`).
    public var checkpointLength: UInt64
    public var checkpointChecksum: UInt32
    /// How many of the journal's records come before it: 0 for the archive alone.
    public var records: Int
    /// CRC-32C of those records, each its ticket, length and payload, in order. Items
    /// that came back to an earlier state give an archive of the same bytes, and a new
    /// journal after it, whose records may repeat the old ones byte for byte; their
    /// tickets differ (a journal's tickets increase, and an empty one starts from a
    /// random point), and so does the chain.
    public var chain: UInt32

    /// The archive `checkpoint`, before any record of its journal.
    init(following checkpoint: CheckpointDigest) {
        checkpointLength = checkpoint.length
        checkpointChecksum = checkpoint.checksum
        records = 0
        chain = 0
    }

    /// The position after the next record, `payload`, appended with `ticket`.
    func advanced(past payload: Data, ticket: Journal.Ticket) -> JournalPosition {
        var crc = CRC32C(continuing: chain)
        withUnsafeBytes(of: ticket.littleEndian) { crc.update($0) }
        withUnsafeBytes(of: UInt64(payload.count).littleEndian) { crc.update($0) }
        payload.withUnsafeBytes { crc.update($0) }
        var next = self
        next.records += 1
        next.chain = crc.value
        return next
    }
}
