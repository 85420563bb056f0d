#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The first pass of the binary writer: numbers every object, merging equal scalars.
struct BinaryObjectTable {
    enum Object {
        case scalar(PropertyListValue)
        /// The container's references sit in `references[start ..< start + count]`
        /// (twice `count` for a dictionary: its keys, then its values).
        case array(start: Int, count: Int)
        case dictionary(start: Int, count: Int)
    }

    private(set) var objects: [Object] = []
    private(set) var references: [Int] = []
    /// How many containers a container may sit inside.
    let maxDepth: Int

    // One table per scalar kind, so kinds that compare equal as numbers (1 and 1.0, a
    // float and a double) stay distinct objects.
    private var strings = BinaryInternTable<String>()
    private var integers = BinaryInternTable<UInt64>()
    private var unsignedIntegers = BinaryInternTable<UInt64>()
    private var doubles = BinaryInternTable<UInt64>()
    private var floats = BinaryInternTable<UInt64>()
    private var dates = BinaryInternTable<UInt64>()
    private var uids = BinaryInternTable<UInt64>()
    private var datas: [Data: Int] = [:]
    private var booleans: [Bool: Int] = [:]
    private var payloadBytes = 0

    init(maxDepth: Int) {
        self.maxDepth = maxDepth
    }

    /// Adds `value`, which sits inside `depth` containers, and everything below it;
    /// returns its object number.
    /// - Throws: ``PropertyListError`` `.limitExceeded`, with the key path, for a
    ///   container inside `maxDepth` others; the table is then unusable.
    @discardableResult
    mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        switch value {
        case .array(let elements):
            guard depth < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
            let index = append(.array(start: references.count, count: elements.count))
            let start = reserveReferences(elements.count)
            for (position, element) in elements.enumerated() {
                do {
                    references[start + position] = try add(element, depth: depth + 1)
                } catch {
                    throw error.inside(index: position)
                }
            }
            return index
        case .dictionary(let dictionary):
            guard depth < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
            let index = append(.dictionary(start: references.count, count: dictionary.count))
            let start = reserveReferences(dictionary.count * 2)
            for (position, entry) in dictionary.enumerated() {
                references[start + position] = addString(entry.key)
            }
            for (position, entry) in dictionary.enumerated() {
                do {
                    references[start + dictionary.count + position] = try add(entry.value, depth: depth + 1)
                } catch {
                    throw error.inside(key: entry.key)
                }
            }
            return index
        case .string(let string):
            return addString(string)
        case .integer(let integer):
            return unique(integers.claim(UInt64(bitPattern: integer), next: objects.count), value)
        case .unsignedInteger(let integer):
            return unique(unsignedIntegers.claim(integer, next: objects.count), value)
        case .real(let real):
            return unique(doubles.claim(real.bitPattern, next: objects.count), value)
        case .float(let float):
            return unique(floats.claim(UInt64(float.bitPattern), next: objects.count), value)
        case .date(let date):
            return unique(dates.claim(date.timeIntervalSinceReferenceDate.bitPattern, next: objects.count), value)
        case .data(let data):
            return unique(Self.claim(data, in: &datas, next: objects.count), value)
        case .uid(let uid):
            return unique(uids.claim(uid.value, next: objects.count), value)
        case .bool(let bool):
            return unique(Self.claim(bool, in: &booleans, next: objects.count), value)
        }
    }

    private mutating func addString(_ string: String) -> Int {
        unique(strings.claim(string, next: objects.count), .string(string))
    }

    /// A generous upper bound of the output size, to allocate once.
    func estimatedSize(referenceSize: Int) -> Int {
        8 + objects.count * 18 + references.count * referenceSize + payloadBytes + 32
    }

    /// The object number `key` already has, or `next`, which it is given.
    private static func claim<Key: Hashable>(_ key: Key, in table: inout [Key: Int], next: Int) -> (
        index: Int, isNew: Bool
    ) {
        if let index = table[key] { return (index, false) }
        table[key] = next
        return (next, true)
    }

    private mutating func unique(_ claim: (index: Int, isNew: Bool), _ value: PropertyListValue) -> Int {
        guard claim.isNew else { return claim.index }
        switch value {
        case .string(let string): payloadBytes += string.utf8.count * 2
        case .data(let data): payloadBytes += data.count
        default: break
        }
        return append(.scalar(value))
    }

    private mutating func append(_ object: Object) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    private mutating func reserveReferences(_ count: Int) -> Int {
        let start = references.count
        references.append(contentsOf: repeatElement(0, count: count))
        return start
    }
}
