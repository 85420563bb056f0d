import Foundation

/// One change of a ``BlobStore``, as a record of its journal: a blob stored under a
/// key, or a key's blob removed.
///
/// The bytes: a kind (1: stored, 2: removed), the key's length in UTF-8 (two bytes,
/// big-endian), the key, then the blob itself for a stored one.
enum BlobChange: Equatable, Sendable {
    case set(key: String, data: Data)
    case delete(key: String)

    var key: String {
        switch self {
        case .set(let key, _), .delete(let key): key
        }
    }

    /// The blob the key holds after the change; `nil` once removed.
    var data: Data? {
        switch self {
        case .set(_, let data): data
        case .delete: nil
        }
    }

    func encoded() -> Data {
        let key = Array(key.utf8)
        var bytes = Data(capacity: 3 + key.count + (data?.count ?? 0))
        bytes.append(data == nil ? 2 : 1)
        bytes.append(UInt8(key.count >> 8))
        bytes.append(UInt8(key.count & 0xFF))
        bytes.append(contentsOf: key)
        if let data { bytes.append(data) }
        return bytes
    }

    /// - Throws: ``StoreError`` `.corruptArchive` for bytes no change encodes.
    init(decoding record: Data) throws(StoreError) {
        let bytes = [UInt8](record.prefix(3))
        guard bytes.count == 3, bytes[0] == 1 || bytes[0] == 2 else {
            throw StoreError(.corruptArchive, "a blob journal record of an unknown kind")
        }
        let keyLength = Int(bytes[1]) << 8 | Int(bytes[2])
        let keyStart = record.startIndex + 3
        guard record.count >= 3 + keyLength,
            let key = String(bytes: record[keyStart..<keyStart + keyLength], encoding: .utf8)
        else { throw StoreError(.corruptArchive, "a blob journal record's key is cut short or not UTF-8") }
        try BlobStore.validate(key: key)
        let rest = record[(keyStart + keyLength)...]
        if bytes[0] == 1 {
            self = .set(key: key, data: Data(rest))
        } else {
            guard rest.isEmpty else { throw StoreError(.corruptArchive, "a blob removal record carries bytes") }
            self = .delete(key: key)
        }
    }
}
