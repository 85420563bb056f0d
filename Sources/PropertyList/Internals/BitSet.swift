/// A fixed number of bits, one per page or object: which pages of a document are read,
/// which objects a walk has visited.
struct BitSet {
    private var words: [UInt64]

    init(count: Int) {
        words = [UInt64](repeating: 0, count: (count + 63) / 64)
    }

    func contains(_ bit: Int) -> Bool {
        words[bit / 64] & (1 << UInt64(bit % 64)) != 0
    }

    /// Sets `bit`; whether it was clear before.
    @discardableResult
    mutating func insert(_ bit: Int) -> Bool {
        let mask: UInt64 = 1 << UInt64(bit % 64)
        defer { words[bit / 64] |= mask }
        return words[bit / 64] & mask == 0
    }
}
