/// Open-addressing tables that give each distinct scalar one object number.
///
/// The binary writer looks up every string and number it writes; Swift's `Dictionary`
/// spends most of that time in SipHash, which guards against hash flooding. Our keys
/// come from the caller's own value, not from an attacker, so a fast multiplicative
/// hash is enough.
struct StringInternTable {
    private var slots: [Int32]
    private var keys: [String] = []
    private var numbers: [Int] = []

    init() {
        slots = [Int32](repeating: -1, count: 64)
    }

    /// The number `string` already has, or `next`, which it is given.
    mutating func claim(_ string: String, next: Int) -> (index: Int, isNew: Bool) {
        var string = string
        let hash = string.withUTF8 { Self.hash($0) }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry < 0 { break }
            if keys[Int(entry)] == string { return (numbers[Int(entry)], false) }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(keys.count)
        keys.append(string)
        numbers.append(next)
        if keys.count * 2 > slots.count { grow() }
        return (next, true)
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (entry, key) in keys.enumerated() {
            var key = key
            var slot = Int(truncatingIfNeeded: key.withUTF8 { Self.hash($0) }) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entry)
        }
    }

    /// Eight bytes at a time, multiplied and folded (in the spirit of FxHash).
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(bytes.count) &* multiplier
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= raw.count {
            hash = (hash.rotatedLeft(by: 5) ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
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

/// The same for scalars identified by 64 bits (integers, reals, dates, UIDs).
struct BitsInternTable {
    private var slots: [Int32]
    private var keys: [UInt64] = []
    private var numbers: [Int] = []

    init() {
        slots = [Int32](repeating: -1, count: 64)
    }

    mutating func claim(_ key: UInt64, next: Int) -> (index: Int, isNew: Bool) {
        let mask = slots.count - 1
        var slot = Self.slot(for: key, mask: mask)
        while true {
            let entry = slots[slot]
            if entry < 0 { break }
            if keys[Int(entry)] == key { return (numbers[Int(entry)], false) }
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
            var slot = Self.slot(for: key, mask: mask)
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entry)
        }
    }

    private static func slot(for key: UInt64, mask: Int) -> Int {
        let mixed = (key ^ (key >> 32)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 20) & mask
    }
}

extension UInt64 {
    func rotatedLeft(by count: UInt64) -> UInt64 {
        self << count | self >> (64 - count)
    }
}
