extension Dictionary where Value == Int {
    /// The number `key` has, or `next`, which it is given when it has none: one hash of
    /// the key, where looking it up and then inserting it take two.
    @inline(__always)
    mutating func number(of key: Key, givingIfMissing next: Int) -> Int {
        func read(_ number: inout Int) -> Int { number }
        return read(&self[key, default: next])
    }
}
