import Foundation

/// A change to one blob, as the photo journal records it: a kind byte (1 for a new
/// blob, 2 for a removal), the key's length (2 bytes, little-endian), the key in
/// UTF-8, then the blob's bytes.
struct BlobChange: Equatable {
    var key: String
    /// The new bytes; `nil` for a removal.
    var data: Data?

    init(key: String, data: Data?) {
        self.key = key
        self.data = data
    }

    private static let set: UInt8 = 1
    private static let removal: UInt8 = 2

    func encoded() -> Data {
        let keyBytes = Array(key.utf8)
        var record = Data(capacity: 3 + keyBytes.count + (data?.count ?? 0))
        record.append(data == nil ? Self.removal : Self.set)
        record.append(UInt8(keyBytes.count & 0xFF))
        record.append(UInt8(keyBytes.count >> 8))
        record.append(contentsOf: keyBytes)
        if let data { record.append(data) }
        return record
    }

    /// Decodes a record written by ``encoded()``; `nil` when it is not one, or names a
    /// key the store refuses.
    init?(decoding record: Data) {
        let bytes = [UInt8](record.prefix(3))
        guard bytes.count == 3, bytes[0] == Self.set || bytes[0] == Self.removal else { return nil }
        let keyLength = Int(bytes[1]) | Int(bytes[2]) << 8
        let keyStart = record.startIndex + 3
        guard record.count >= 3 + keyLength,
            let key = String(validating: record[keyStart..<keyStart + keyLength], as: UTF8.self),
            (try? BlobStore.validate(key: key)) != nil
        else { return nil }
        if bytes[0] == Self.removal {
            guard record.count == 3 + keyLength else { return nil }
            self.init(key: key, data: nil)
        } else {
            self.init(key: key, data: Data(record[(keyStart + keyLength)...]))
        }
    }
}
