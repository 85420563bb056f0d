/// The positions that keep a store's order in the shared table.
///
/// Each record has a position, a `Double`; the order is the records sorted by position,
/// then by id. A save gives a new position only to the items whose place changed (new
/// ones, moved ones), between their neighbours', so that two replicas reordering
/// different items write different records and do not conflict.
///
/// Why the id: two replicas appending an item at once give both the same position.
/// Ordered by position alone, each later save would see one of the pair out of place
/// and move it, writing an item its replica never touched.
enum ItemPositions {
    /// The position of each of `ids`, in that order: `previous[id]` for the longest run
    /// of items still in their previous relative order, new positions between their
    /// neighbours' for the rest. (position, id) rises strictly along `ids`.
    static func assign(to ids: [String], previous: [String: Double]) -> [Double] {
        let kept = longestRisingRun(ids.map { id in previous[id].map { ($0, id) } })
        var positions = [Double](repeating: 0, count: ids.count)
        var index = 0
        while index < ids.count {
            if kept.contains(index), let position = previous[ids[index]] {
                positions[index] = position
                index += 1
                continue
            }
            // A gap of items to place between the kept neighbours around it.
            var end = index
            while end < ids.count, !kept.contains(end) { end += 1 }
            let count = Double(end - index)
            let low = index > 0 ? positions[index - 1] : (end < ids.count ? previous[ids[end]]! - count - 1 : 0)
            let high = end < ids.count ? previous[ids[end]]! : low + count + 1
            let step = (high - low) / (count + 1)
            for offset in 0..<(end - index) { positions[index + offset] = low + step * Double(offset + 1) }
            index = end
        }
        // Repeated halving can run out of precision between two neighbours, and a gap
        // between two items of one position has no room: renumber.
        return isStrictlyRising(positions, ids) ? positions : ids.indices.map { Double($0 + 1) }
    }

    private static func isStrictlyRising(_ positions: [Double], _ ids: [String]) -> Bool {
        let keys = zip(positions, ids).map { ($0, $1) }
        return zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 } && positions.allSatisfy(\.isFinite)
    }

    /// The indices of a longest strictly rising subsequence of the known (position, id)
    /// pairs (patience sorting, O(n log n)).
    static func longestRisingRun(_ positions: [(Double, String)?]) -> Set<Int> {
        var tails: [Int] = []  // tails[k]: index ending the best run of length k + 1
        var parent = [Int](repeating: -1, count: positions.count)
        for (index, position) in positions.enumerated() {
            guard let position else { continue }
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if positions[tails[middle]]! < position { low = middle + 1 } else { high = middle }
            }
            if low > 0 { parent[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run = Set<Int>()
        var index = tails.last ?? -1
        while index >= 0 {
            run.insert(index)
            index = parent[index]
        }
        return run
    }
}
