/// Storage for dictionary entries. One block may hold the entries of many dictionaries
/// read from one file (see ``EntryArena``), each a range of it.
///
/// The header is reached through `withUnsafeMutablePointerToHeader` rather than the
/// `header` property, which, as a class's stored property, costs a dynamic exclusivity
/// check on every access.
final class EntryBlock: ManagedBuffer<EntryBlock.Header, PropertyListDictionary.Entry> {
    struct Header {
        /// Initialised entries, always a prefix.
        var initialised = 0
        /// Kept here because asking the allocator (`ManagedBuffer.capacity`) is slow.
        let capacity: Int
    }

    static func make(capacity: Int) -> EntryBlock {
        unsafeDowncast(create(minimumCapacity: capacity) { _ in Header(capacity: capacity) }, to: EntryBlock.self)
    }

    var initialised: Int { withUnsafeMutablePointerToHeader { $0.pointee.initialised } }
    var entryCapacity: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

    /// A block of its own holding a copy of `count` entries from `source`.
    static func copy(of source: UnsafeMutablePointer<PropertyListDictionary.Entry>, count: Int, capacity: Int) -> EntryBlock {
        let block = make(capacity: capacity)
        block.withUnsafeMutablePointers { header, entries in
            entries.initialize(from: source, count: count)
            header.pointee.initialised = count
        }
        return block
    }

    deinit {
        _ = withUnsafeMutablePointers { header, entries in entries.deinitialize(count: header.pointee.initialised) }
    }
}

/// The entries of one dictionary: a range of a block, copied on write.
///
/// A dictionary read from a binary file may share its block with others of that file;
/// the first change to such a dictionary copies its own entries out.
///
/// Sendable although blocks are mutable: entries change only in a block nobody else
/// references (copy on write), or while a reader fills a block before it hands out the
/// dictionaries.
struct DictionaryEntries: RandomAccessCollection, MutableCollection, @unchecked Sendable {
    typealias Entry = PropertyListDictionary.Entry

    private var block: EntryBlock
    private var start: Int
    private(set) var count: Int

    /// Shared by every empty dictionary; never unique, so never written to.
    nonisolated(unsafe) private static let empty = EntryBlock.make(capacity: 0)

    init() {
        (block, start, count) = (Self.empty, 0, 0)
    }

    /// Entries `start..<start + count` of `block`, already initialised.
    fileprivate init(block: EntryBlock, start: Int, count: Int) {
        (self.block, self.start, self.count) = (block, start, count)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Entry {
        get {
            precondition(position >= 0 && position < count, "entry index out of range")
            return block.withUnsafeMutablePointerToElements { $0[start + position] }
        }
        set {
            precondition(position >= 0 && position < count, "entry index out of range")
            if !isKnownUniquelyReferenced(&block) { moveToOwnBlock(capacity: count) }
            block.withUnsafeMutablePointerToElements { $0[start + position] = newValue }
        }
    }

    mutating func reserveCapacity(_ capacity: Int) {
        if !hasUniqueTail(room: capacity) { moveToOwnBlock(capacity: Swift.max(capacity, count)) }
    }

    mutating func append(_ entry: Entry) {
        if !hasUniqueTail(room: count + 1) { moveToOwnBlock(capacity: Swift.max(4, count * 2)) }
        block.withUnsafeMutablePointers { header, entries in
            (entries + start + count).initialize(to: entry)
            header.pointee.initialised += 1
        }
        count += 1
    }

    @discardableResult
    mutating func remove(at position: Int) -> Entry {
        precondition(position >= 0 && position < count, "entry index out of range")
        if !hasUniqueTail(room: count) { moveToOwnBlock(capacity: count) }
        let removed = block.withUnsafeMutablePointers { header, entries in
            let slot = entries + start + position
            let removed = slot.move()
            slot.moveInitialize(from: slot + 1, count: count - position - 1)
            header.pointee.initialised -= 1
            return removed
        }
        count -= 1
        return removed
    }

    /// Whether this is the only user of its block, its entries are the block's last, and
    /// the block holds `capacity` entries from where they start: the case where entries
    /// can be added or removed in place.
    private mutating func hasUniqueTail(room capacity: Int) -> Bool {
        isKnownUniquelyReferenced(&block) && start + count == block.initialised && block.entryCapacity - start >= capacity
    }

    private mutating func moveToOwnBlock(capacity: Int) {
        let (start, count) = (start, count)
        block = block.withUnsafeMutablePointerToElements { EntryBlock.copy(of: $0 + start, count: count, capacity: capacity) }
        self.start = 0
    }
}

/// Gives the dictionaries of one read ranges of shared blocks, so that reading costs
/// one allocation per few thousand entries instead of one per dictionary.
///
/// Only dictionaries whose values hold no array or dictionary stay in a shared block:
/// a block that held a value leading to a dictionary in that same block would keep
/// itself alive. A reader takes a range with ``begin(capacity:)``, appends the keys
/// (nested dictionaries may begin ranges of their own only after that), sets each value
/// once, and ends with ``finish(_:)``, or with ``abandon(_:)`` when reading fails.
struct EntryArena {
    /// Entries per shared block: about 160 KB, the most one surviving dictionary can
    /// keep alive beyond its own entries.
    static let blockCapacity = 4096

    private var block = EntryBlock.make(capacity: 0)

    /// A dictionary being read: where its entries start, and how many it has so far.
    struct Range {
        fileprivate let block: EntryBlock
        fileprivate let start: Int
        fileprivate let capacity: Int
        fileprivate var count = 0
        /// How many values have been set, and whether one is an array or a dictionary.
        fileprivate var valuesSet = 0
        fileprivate var holdsContainers = false
    }

    /// Starts a dictionary of `capacity` entries at the end of the current block, or of
    /// a new one when the current block lacks room.
    mutating func begin(capacity: Int) -> Range {
        if block.entryCapacity - block.initialised < capacity {
            block = EntryBlock.make(capacity: Swift.max(capacity, Self.blockCapacity))
        }
        return Range(block: block, start: block.initialised, capacity: capacity)
    }

    /// Appends an entry for `key` with a placeholder value; `range` must still be its
    /// block's last, which holds until a nested dictionary begins.
    func appendKey(_ key: String, to range: inout Range) {
        precondition(range.count < range.capacity, "more entries than the range began with")
        range.block.withUnsafeMutablePointers { header, entries in
            precondition(header.pointee.initialised == range.start + range.count, "range entries appended out of order")
            (entries + header.pointee.initialised).initialize(to: .init(key: key, value: .bool(false)))
            header.pointee.initialised += 1
        }
        range.count += 1
    }

    /// Sets the next value, in key order.
    func setNextValue(_ value: PropertyListValue, in range: inout Range) {
        precondition(range.valuesSet < range.count, "more values than keys")
        switch value {
        case .array, .dictionary: range.holdsContainers = true
        default: break
        }
        range.block.withUnsafeMutablePointerToElements { entries in
            // The placeholder is trivial (`.bool(false)`), so it can be overwritten without
            // being destroyed; assigning would go through the enum's generic witness.
            withUnsafeMutablePointer(to: &entries[range.start + range.valuesSet].value) { $0.initialize(to: value) }
        }
        range.valuesSet += 1
    }

    /// The finished dictionary's entries: in the shared block, or copied to a block of
    /// their own when a value is a container, leaving placeholders behind.
    func finish(_ range: Range) -> DictionaryEntries {
        precondition(range.valuesSet == range.count, "a key without a value")
        guard range.holdsContainers else {
            return DictionaryEntries(block: range.block, start: range.start, count: range.count)
        }
        let own = range.block.withUnsafeMutablePointerToElements {
            EntryBlock.copy(of: $0 + range.start, count: range.count, capacity: range.count)
        }
        abandon(range)
        return DictionaryEntries(block: own, start: 0, count: range.count)
    }

    /// Puts the placeholder back in place of every value set, so the shared block keeps
    /// none of them alive.
    func abandon(_ range: Range) {
        range.block.withUnsafeMutablePointerToElements { entries in
            for position in range.start..<range.start + range.valuesSet { entries[position].value = .bool(false) }
        }
    }
}
