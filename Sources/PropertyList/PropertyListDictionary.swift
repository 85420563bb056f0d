/// A property-list dictionary: string keys, insertion order kept.
///
/// Order makes output deterministic (a file read and written again keeps its key order);
/// equality ignores it, as `NSDictionary` and every plist reader do. Small dictionaries,
/// the common case for model records, are searched linearly and never hash their keys;
/// larger ones keep a hash index.
///
/// Dictionaries read from one binary plist whose values hold no array or dictionary
/// (records, typically) share storage blocks of a few thousand entries, so one kept
/// alive after the rest are gone keeps its block (up to about 160 KB) alive too;
/// changing it first copies its own entries out.
public struct PropertyListDictionary: Sendable {
    public typealias Element = (key: String, value: PropertyListValue)

    /// Storage entry: a struct rather than `Element`, because tuples are destroyed
    /// through the runtime's generic tuple code, while a struct gets a specialised
    /// destroy, which makes freeing a large tree cheaper.
    struct Entry {
        var key: String
        var value: PropertyListValue
    }

    /// The entries, with positions of keys present only above `linearSearchLimit` entries.
    private var entries: DictionaryEntries

    static let linearSearchLimit = 12

    public init() {
        entries = DictionaryEntries()
    }

    public init(minimumCapacity: Int) {
        entries = DictionaryEntries()
        entries.reserveCapacity(minimumCapacity)
    }

    /// Takes `entries` as they are when their keys are distinct, which readers check
    /// cheaply for small dictionaries; otherwise falls back to inserting one by one.
    init(readEntries: DictionaryEntries) {
        if readEntries.count <= Self.linearSearchLimit {
            // Keys of different lengths differ; only equal lengths need a comparison.
            let distinct = withUnsafeTemporaryAllocation(of: Int.self, capacity: readEntries.count) { lengths in
                for (position, entry) in readEntries.enumerated() { lengths[position] = entry.key.utf8.count }
                for i in 0..<readEntries.count {
                    for j in i + 1..<readEntries.count
                    where lengths[i] == lengths[j] && readEntries[i].key == readEntries[j].key {
                        return false
                    }
                }
                return true
            }
            if distinct {
                self.init(distinctEntries: readEntries)
                return
            }
        }
        self.init(minimumCapacity: readEntries.count)
        for entry in readEntries { updateValue(entry.value, forKey: entry.key) }
    }

    /// Takes `entries` as they are; the caller knows their keys are distinct.
    init(distinctEntries: DictionaryEntries) {
        entries = distinctEntries
        if entries.count > Self.linearSearchLimit { rebuildIndex() }
    }

    /// Builds a dictionary from pairs; a later duplicate key replaces the earlier value
    /// but keeps the earlier position.
    public init(_ pairs: some Sequence<(String, PropertyListValue)>) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [String] { entries.map(\.key) }
    public var values: [PropertyListValue] { entries.map(\.value) }

    /// The value under `key`; assigning `nil` removes the key.
    public subscript(key: String) -> PropertyListValue? {
        get { position(of: key).map { entries[$0].value } }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets `value` under `key`, keeping the key's position if present.
    /// - Returns: the value replaced, if any.
    @discardableResult
    public mutating func updateValue(_ value: PropertyListValue, forKey key: String) -> PropertyListValue? {
        if let position = position(of: key) {
            let old = entries[position].value
            entries[position].value = value
            return old
        }
        entries.append(Entry(key: key, value: value))
        if entries.count > Self.linearSearchLimit {
            if entries.index != nil {
                entries.addToIndex(key, at: entries.count - 1)
            } else {
                rebuildIndex()
            }
        }
        return nil
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> PropertyListValue? {
        guard let position = position(of: key) else { return nil }
        let old = entries.remove(at: position).value
        if entries.count > Self.linearSearchLimit {
            rebuildIndex()
        } else if entries.index != nil {
            entries.index = nil
        }
        return old
    }

    /// The entries in order where they are stored; see
    /// ``DictionaryEntries/withUnsafeEntries(_:)``.
    func withUnsafeEntries<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<Entry>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try entries.withUnsafeEntries(body)
    }

    private func position(of key: String) -> Int? {
        if entries.count > Self.linearSearchLimit, let index = entries.index { return index[key] }
        return entries.firstIndex { $0.key == key }
    }

    private mutating func rebuildIndex() {
        var index = [String: Int](minimumCapacity: entries.count)
        for (position, entry) in entries.enumerated() { index[entry.key] = position }
        entries.index = index
    }
}

extension PropertyListDictionary: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }
    public subscript(position: Int) -> Element { (entries[position].key, entries[position].value) }
}

extension PropertyListDictionary: Hashable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.entries.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// Order-independent: the entries' hashes are summed.
    public func hash(into hasher: inout Hasher) {
        var sum = 0
        for entry in entries {
            var entryHasher = Hasher()
            entryHasher.combine(entry.key)
            entryHasher.combine(entry.value)
            sum &+= entryHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(sum)
    }
}

extension PropertyListDictionary: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self.init(elements)
    }
}
