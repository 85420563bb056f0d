/// An open-addressing table that gives each distinct scalar one object number.
///
/// The binary writer looks up every string and number it writes; Swift's `Dictionary`
/// spends most of that time in SipHash, which guards against hash flooding. Our keys
/// come from the caller's own value, not from an attacker, so a fast multiplicative
/// hash is enough. Each slot keeps the lower half of its key's hash beside the entry,
/// the bits that pick its slot and some more: a probe that meets another key is mostly
/// told apart without reading that key, and growing the table hashes nothing again.
struct BinaryInternTable<Key: BinaryInternKey> {
    private struct Slot {
        /// The lower 32 bits of the key's hash, whose lowest bits pick the slot.
        var hash: UInt32
        /// The entry's position, or -1 for an empty slot.
        var entry: Int32

        static var empty: Slot { Slot(hash: 0, entry: -1) }
    }

    private struct Entry {
        let key: Key
        let number: Int
    }

    private var slots = [Slot](repeating: .empty, count: 64)
    private var entries: [Entry] = []

    /// The number `key` already has, or `next`, which it is given.
    mutating func claim(_ key: Key, next: Int) -> (index: Int, isNew: Bool) {
        let hash = UInt32(truncatingIfNeeded: key.internHash)
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let found = slots[slot]
            if found.entry < 0 { break }
            if found.hash == hash {
                let entry = entries[Int(found.entry)]
                if entry.key.isSameKey(as: key) { return (entry.number, false) }
            }
            slot = (slot + 1) & mask
        }
        slots[slot] = Slot(hash: hash, entry: Int32(entries.count))
        entries.append(Entry(key: key, number: next))
        if entries.count * 2 > slots.count { grow() }
        return (next, true)
    }

    /// Doubles the slots, placing each entry again by the hash bits its slot keeps.
    private mutating func grow() {
        var grown = [Slot](repeating: .empty, count: slots.count * 2)
        let mask = grown.count - 1
        for old in slots where old.entry >= 0 {
            var slot = Int(old.hash) & mask
            while grown[slot].entry >= 0 { slot = (slot + 1) & mask }
            grown[slot] = old
        }
        slots = grown
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
        // The same storage, or the same small string held inline, is the same bytes:
        // the common case when a reader shared one string among many records.
        if unsafeBitCast(self, to: (UInt64, UInt64).self) == unsafeBitCast(other, to: (UInt64, UInt64).self) {
            return true
        }
        return withUTF8Bytes { mine in
            other.withUTF8Bytes { theirs in
                UnsafeRawBufferPointer(mine).hasSameBytes(as: UnsafeRawBufferPointer(theirs))
            }
        }
    }

    /// The UTF-8 bytes eight at a time, multiplied and folded (in the spirit of FxHash).
    var internHash: UInt64 {
        withUTF8Bytes { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            var hash = UInt64(raw.count) &* multiplier
            var offset = 0
            while offset + 8 <= raw.count {
                hash =
                    (hash.rotatedLeft(by: 5) ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
                offset += 8
            }
            if offset < raw.count {
                // The last bytes: with eight or more in all, the final word, overlapping
                // bytes already mixed in; otherwise each byte.
                var tail: UInt64 = 0
                if raw.count >= 8 {
                    tail = raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self)
                } else {
                    for position in offset..<raw.count { tail |= UInt64(raw[position]) << (8 * UInt64(position)) }
                }
                hash = (hash.rotatedLeft(by: 5) ^ tail) &* multiplier
            }
            return hash ^ (hash >> 29)
        }
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(by count: UInt64) -> UInt64 {
        self << count | self >> (64 - count)
    }
}
