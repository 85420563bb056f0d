public import Foundation

/// The checkpoint a journal follows: its length and CRC-32C. A journal applies only on
/// top of the checkpoint it names.
@_spi(Journal) public struct CheckpointDigest: Sendable, Hashable, CustomStringConvertible {
    public let length: UInt64
    public let checksum: UInt32

    init(length: UInt64, checksum: UInt32) {
        self.length = length
        self.checksum = checksum
    }

    /// The digest of a checkpoint's bytes.
    public init(of bytes: Data) {
        length = UInt64(bytes.count)
        checksum = bytes.withUnsafeBytes { CRC32C.checksum($0) }
    }

    /// No checkpoint written yet.
    public static let none = CheckpointDigest(length: 0, checksum: 0)

    public var description: String { "\(length) bytes, CRC-32C \(String(checksum, radix: 16))" }
}
