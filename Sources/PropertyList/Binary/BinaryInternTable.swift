/// An open-addressing table that gives each distinct scalar one object number.
///
/// The binary writer looks up every string and number it writes; Swift's `Dictionary`
/// spends most of that time in SipHash, which guards against hash flooding. Our keys
/// come from the caller's own value, not from an attacker, so a fast multiplicative
/// hash is enough.
struct BinaryInternTable<Key: BinaryInternKey> {
    private var slots = [Int32](repeating: -1, count: 64)
    private var keys: [Key] = []
    private var numbers: [Int] = []

    /// The number `key` already has, or `next`, which it is given.
    mutating func claim(_ key: Key, next: Int) -> (index: Int, isNew: Bool) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: key.internHash) & mask
        while true {
            let entry = slots[slot]
            if entry < 0 { break }
            if keys[Int(entry)].isSameKey(as: key) { return (numbers[Int(entry)], false) }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(keys.count)
        keys.append(key)
        numbers.append(next)
        if keys.count * 2 > slots.count { grow() }
        return (next, true)
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (entry, key) in keys.enumerated() {
            var slot = Int(truncatingIfNeeded: key.internHash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entry)
        }
    }
}

/// A key of ``BinaryInternTable``: exact equality plus a cheap, well-spread hash.
protocol BinaryInternKey {
    var internHash: UInt64 { get }
    /// Whether both are written as the same bytes. For strings this is not `==`, which
    /// finds `é` and `e` + U+0301 equal: merged, one would be written as the other.
    func isSameKey(as other: Self) -> Bool
}

private let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

extension UInt64: BinaryInternKey {
    func isSameKey(as other: UInt64) -> Bool { self == other }

    /// The 64 bits of an integer, real, date or UID, mixed so the slot bits vary.
    var internHash: UInt64 {
        ((self ^ (self >> 32)) &* multiplier) >> 20
    }
}

extension String: BinaryInternKey {
    func isSameKey(as other: String) -> Bool {
        let inPlace = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                UnsafeRawBufferPointer(mine).hasSameBytes(as: UnsafeRawBufferPointer(theirs))
            }
        }
        return (inPlace ?? nil) ?? utf8.elementsEqual(other.utf8)
    }

    /// The UTF-8 bytes eight at a time, multiplied and folded (in the spirit of FxHash).
    var internHash: UInt64 {
        var string = self
        return string.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            var hash = UInt64(raw.count) &* multiplier
            var offset = 0
            while offset + 8 <= raw.count {
                hash =
                    (hash.rotatedLeft(by: 5) ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
                offset += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < raw.count {
                tail |= UInt64(raw[offset]) << shift
                shift += 8
                offset += 1
            }
            hash = (hash.rotatedLeft(by: 5) ^ tail) &* multiplier
            return hash ^ (hash >> 29)
        }
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(by count: UInt64) -> UInt64 {
        self << count | self >> (64 - count)
    }
}
