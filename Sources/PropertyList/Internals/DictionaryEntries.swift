/// Storage for dictionary entries. One block may hold the entries of many small
/// dictionaries read from one file (see ``EntryArena``), each a range of it.
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
        /// Positions of keys, for a block whose one range is a dictionary of more than
        /// `PropertyListDictionary.linearSearchLimit` entries. Kept here rather than in
        /// the dictionary so that a dictionary, and so every property-list value, stays
        /// 16 bytes.
        var index: [String: Int]?
    }

    static func make(capacity: Int) -> EntryBlock {
        unsafeDowncast(create(minimumCapacity: capacity) { _ in Header(capacity: capacity) }, to: EntryBlock.self)
    }

    var initialised: Int { withUnsafeMutablePointerToHeader { $0.pointee.initialised } }
    var entryCapacity: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

    /// A block of its own holding a copy of `count` entries from `source`, and `index`.
    static func copy(
        of source: UnsafeMutablePointer<PropertyListDictionary.Entry>, count: Int, capacity: Int, index: [String: Int]?
    ) -> EntryBlock {
        let block = make(capacity: capacity)
        block.withUnsafeMutablePointers { header, entries in
            entries.initialize(from: source, count: count)
            header.pointee.initialised = count
            header.pointee.index = index
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
/// the first change to such a dictionary copies its own entries out. Every range that
/// references a block was made equal to the others when the block was last changed,
/// because only a range that is the block's sole user changes it in place; so a key
/// index in the block's header is valid for all of them.
///
/// Sendable although blocks are mutable: entries change only in a block nobody else
/// references (copy on write), or while a reader fills a block before it hands out the
/// dictionaries.
struct DictionaryEntries: RandomAccessCollection, MutableCollection, @unchecked Sendable {
    typealias Entry = PropertyListDictionary.Entry

    /// The most entries one dictionary can hold: start and count are 32-bit, so that
    /// a dictionary and a property-list value take 16 bytes.
    static let maximumCount = Int(UInt32.max)

    private var block: EntryBlock
    private var storedStart: UInt32
    private var storedCount: UInt32

    /// Shared by every empty dictionary; never unique, so never written to.
    nonisolated(unsafe) private static let empty = EntryBlock.make(capacity: 0)

    init() {
        (block, storedStart, storedCount) = (Self.empty, 0, 0)
    }

    /// Entries `start..<start + count` of `block`, already initialised.
    fileprivate init(block: EntryBlock, start: Int, count: Int) {
        (self.block, storedStart, storedCount) = (block, UInt32(start), UInt32(count))
    }

    private var start: Int { Int(storedStart) }
    var count: Int { Int(storedCount) }
    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// The entries where they are stored, for walks that read every key and value
    /// without copying each entry out (which retains and releases both).
    func withUnsafeEntries<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<Entry>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let entries = block.withUnsafeMutablePointerToElements { $0 + start }
        defer { withExtendedLifetime(block) {} }
        return try body(UnsafeBufferPointer(start: entries, count: count))
    }

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

    /// The key index kept with the entries, if any; see ``EntryBlock/Header/index``.
    var index: [String: Int]? {
        get { block.withUnsafeMutablePointerToHeader { $0.pointee.index } }
        set {
            if !isKnownUniquelyReferenced(&block) { moveToOwnBlock(capacity: count) }
            block.withUnsafeMutablePointerToHeader { $0.pointee.index = newValue }
        }
    }

    /// Adds `key` at `position` to the index in place, when there is an index.
    mutating func addToIndex(_ key: String, at position: Int) {
        if !isKnownUniquelyReferenced(&block) { moveToOwnBlock(capacity: count) }
        block.withUnsafeMutablePointerToHeader { $0.pointee.index?[key] = position }
    }

    mutating func reserveCapacity(_ capacity: Int) {
        if !hasUniqueTail(room: capacity) { moveToOwnBlock(capacity: Swift.max(capacity, count)) }
    }

    mutating func append(_ entry: Entry) {
        precondition(count < Self.maximumCount, "a dictionary holds at most \(Self.maximumCount) entries")
        if !hasUniqueTail(room: count + 1) { moveToOwnBlock(capacity: Swift.max(4, count * 2)) }
        block.withUnsafeMutablePointers { header, entries in
            (entries + start + count).initialize(to: entry)
            header.pointee.initialised += 1
        }
        storedCount += 1
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
        storedCount -= 1
        return removed
    }

    /// Whether this is the only user of its block, its entries are the block's last, and
    /// the block holds `capacity` entries from where they start: the case where entries
    /// can be added or removed in place.
    private mutating func hasUniqueTail(room capacity: Int) -> Bool {
        isKnownUniquelyReferenced(&block) && start + count == block.initialised
            && block.entryCapacity - start >= capacity
    }

    private mutating func moveToOwnBlock(capacity: Int) {
        let (start, count, index) = (start, count, index)
        block = block.withUnsafeMutablePointerToElements {
            EntryBlock.copy(of: $0 + start, count: count, capacity: capacity, index: index)
        }
        storedStart = 0
    }
}

/// Gives the small dictionaries of one read ranges of shared blocks, so that reading
/// costs one allocation per few thousand entries instead of one per dictionary.
///
/// Dictionaries too large to search linearly, which keep a key index in their block,
/// get a block of their own. Of the others, only those whose values hold no array or
/// dictionary stay in a shared block: a block that held a value leading to a dictionary
/// in that same block would keep itself alive. A reader takes a range with
/// ``begin(capacity:)``, appends the keys (nested dictionaries may begin ranges of their
/// own only after that), sets each value once, and ends with ``finish(_:)``, or with
/// ``abandon(_:)`` when reading fails.
struct EntryArena {
    /// Shared blocks start small, so that small files stay cheap, and double up to
    /// about 160 KB: the most one surviving dictionary can keep alive beyond its own
    /// entries.
    static let firstBlockCapacity = 64
    static let largestBlockCapacity = 4096

    private var block = EntryBlock.make(capacity: 0)
    private var nextBlockCapacity = Self.firstBlockCapacity

    /// A dictionary being read: where its entries start, and how many it has so far.
    struct Range {
        fileprivate let block: EntryBlock
        fileprivate let start: Int
        fileprivate let capacity: Int
        fileprivate let isShared: Bool
        fileprivate var count = 0
        /// How many values have been set, and whether one is an array or a dictionary.
        fileprivate var valuesSet = 0
        fileprivate var holdsContainers = false
    }

    /// Starts a dictionary of `capacity` entries (at most ``DictionaryEntries/maximumCount``):
    /// in a block of its own when it is too large to search linearly, otherwise at the
    /// end of the current shared block, or of a new one when that lacks room.
    mutating func begin(capacity: Int) -> Range {
        precondition(
            capacity <= DictionaryEntries.maximumCount,
            "a dictionary holds at most \(DictionaryEntries.maximumCount) entries")
        guard capacity <= PropertyListDictionary.linearSearchLimit else {
            return Range(block: EntryBlock.make(capacity: capacity), start: 0, capacity: capacity, isShared: false)
        }
        if block.entryCapacity - block.initialised < capacity {
            block = EntryBlock.make(capacity: nextBlockCapacity)
            nextBlockCapacity = Swift.min(nextBlockCapacity * 2, Self.largestBlockCapacity)
        }
        return Range(block: block, start: block.initialised, capacity: capacity, isShared: true)
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

    /// The finished dictionary's entries: in the block they were read into, or, for a
    /// shared block and values that include a container, copied to a block of their own,
    /// leaving placeholders behind.
    func finish(_ range: Range) -> DictionaryEntries {
        precondition(range.valuesSet == range.count, "a key without a value")
        guard range.isShared, range.holdsContainers else {
            return DictionaryEntries(block: range.block, start: range.start, count: range.count)
        }
        let own = range.block.withUnsafeMutablePointerToElements {
            EntryBlock.copy(of: $0 + range.start, count: range.count, capacity: range.count, index: nil)
        }
        abandon(range)
        return DictionaryEntries(block: own, start: 0, count: range.count)
    }

    /// Puts the placeholder back in place of every value set in a shared block, so that
    /// the block keeps none of them alive.
    func abandon(_ range: Range) {
        guard range.isShared else { return }
        range.block.withUnsafeMutablePointerToElements { entries in
            for position in range.start..<range.start + range.valuesSet { entries[position].value = .bool(false) }
        }
    }
}
