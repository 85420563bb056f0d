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
        // Repeated halving can run out of precision between two neighbours, and a gap
        // between two items of one position has no room: renumber.
        place(ids, previous: previous, after: nil, before: nil) ?? ids.indices.map { Double($0 + 1) }
    }

    /// The position of each of `ids`, in that order, between the neighbours `low` and
    /// `high` ((position, id); `nil` for an end of the list): `previous[id]` for the
    /// longest run of items still in their previous relative order between them, new
    /// positions spread evenly between the kept ones for the rest, so that an item
    /// that did not move keeps its position. `nil` when (position, id) cannot rise
    /// strictly from `low` to `high`: no room, or no precision left.
    static func place(
        _ ids: [String], previous: [String: Double], after low: (Double, String)?, before high: (Double, String)?
    ) -> [Double]? {
        let known = ids.map { id -> (Double, String)? in
            guard let position = previous[id] else { return nil }
            let key = (position, id)
            return (low.map { $0 < key } ?? true) && (high.map { key < $0 } ?? true) ? key : nil
        }
        let kept = longestRisingRun(known)
        var positions = [Double](repeating: 0, count: ids.count)
        var index = 0
        while index < ids.count {
            if kept.contains(index), let (position, _) = known[index] {
                positions[index] = position
                index += 1
                continue
            }
            // A gap of items to place between the kept neighbours around it.
            var end = index
            while end < ids.count, !kept.contains(end) { end += 1 }
            let count = Double(end - index)
            let next = end < ids.count ? known[end]?.0 : high?.0
            let from = index > 0 ? positions[index - 1] : low?.0 ?? next.map { $0 - count - 1 } ?? 0
            let to = next ?? from + count + 1
            let step = (to - from) / (count + 1)
            for offset in 0..<(end - index) { positions[index + offset] = from + step * Double(offset + 1) }
            index = end
        }
        var keys = zip(positions, ids).map { ($0, $1) }
        if let low { keys.insert(low, at: 0) }
        if let high { keys.append(high) }
        return positions.allSatisfy(\.isFinite) && zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 } ? positions : nil
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
