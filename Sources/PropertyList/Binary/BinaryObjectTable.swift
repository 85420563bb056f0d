#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Lays out a `bplist00` document: numbers every object (the root first, each container
/// before its children, a dictionary's keys before its values), merging equal scalars,
/// and writes each distinct scalar the moment it is first met. Containers get their
/// numbers in that walk and their bytes after it, once the width of a reference is
/// known, each put back where it was numbered: the document holds its objects in
/// number order, as CoreFoundation and plistlib write them, so a reader walking the
/// tree reads the file front to back.
struct BinaryObjectTable {
    /// A container numbered in the walk; its references sit in
    /// `references[start ..< start + count]` (twice `count` for a dictionary: its keys,
    /// then its values). Its bytes go before the scalar bytes from `scalarsBefore` on.
    private struct Container {
        let number: Int
        let marker: UInt8
        let start: Int
        let count: Int
        let scalarsBefore: Int

        var referenceCount: Int { marker == 0xD ? count * 2 : count }
    }

    /// The header, then every scalar in the order met. Offsets of scalars point into
    /// this until ``finish()`` puts the containers among them.
    private var output = Array("bplist00".utf8)
    /// Where each object starts, by number; a container's is set when it is written.
    private var offsets: [Int] = []
    private var containers: [Container] = []
    private var references: [Int] = []
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

    init(maxDepth: Int) {
        self.maxDepth = maxDepth
    }

    /// Reserves the room a walk of `value` needs, from one quick pass over it. Grown by
    /// doubling, the output and the tables were copied at each step and faulted in
    /// twice the memory they end with: a third of the time of writing 100k records went
    /// to page faults. Dictionary keys are left out of the byte count, since most of
    /// them repeat and are written once; the output still grows when that is short.
    /// Each reservation stops at ``Room/limit`` bytes: equal scalars are written once
    /// but counted at every use, so a value holding one large blob many times would
    /// otherwise ask for far more memory than its file needs.
    mutating func reserveRoom(for value: PropertyListValue) {
        var room = Room()
        room.measure(value, depth: 0, maxDepth: maxDepth)
        let referenceSize = BinaryObjectEncoder.byteWidth(forMaximum: UInt64(room.objects))
        let entries = Room.limit / MemoryLayout<Int>.stride
        output.reserveCapacity(output.count + min(room.scalarBytes + room.references * referenceSize, Room.limit))
        offsets.reserveCapacity(min(room.objects, entries))
        references.reserveCapacity(min(room.references, entries))
        containers.reserveCapacity(min(room.containers, entries))
    }

    /// What a walk can add at most: objects (before equal scalars are merged),
    /// references and containers; and roughly the bytes of the scalars and markers,
    /// counted up to ``limit``.
    private struct Room {
        /// The most one reservation takes: 64 MiB.
        static let limit = 64 << 20

        var objects = 0
        var references = 0
        var containers = 0
        var scalarBytes = 0

        /// Inlined into the loops over a container's elements, as ``add(_:depth:)`` is.
        @inline(__always)
        mutating func measure(_ value: PropertyListValue, depth: Int, maxDepth: Int) {
            objects += 1
            scalarBytes = min(scalarBytes + 10, Self.limit)
            switch value {
            case .array, .dictionary: measureContainer(value, depth: depth, maxDepth: maxDepth)
            case .string(let string): scalarBytes = min(scalarBytes + string.utf8.count, Self.limit)
            case .data(let data): scalarBytes = min(scalarBytes + data.count, Self.limit)
            default: break
            }
        }

        @inline(never)
        private mutating func measureContainer(_ value: PropertyListValue, depth: Int, maxDepth: Int) {
            guard depth < maxDepth else { return }
            containers += 1
            switch value {
            case .array(let elements):
                references += elements.count
                elements.withUnsafeBufferPointer { elements in
                    for position in elements.indices {
                        measure(elements[position], depth: depth + 1, maxDepth: maxDepth)
                    }
                }
            case .dictionary(let dictionary):
                objects += dictionary.count
                references += dictionary.count * 2
                dictionary.withUnsafeEntries { entries in
                    for position in entries.indices {
                        measure(entries[position].value, depth: depth + 1, maxDepth: maxDepth)
                    }
                }
            default: break
            }
        }
    }

    /// Adds `value`, which sits inside `depth` containers, and everything below it;
    /// returns its object number.
    ///
    /// Inlined into the loops over a container's elements, so that a scalar is looked up
    /// where it is stored: passed to a call, each would be retained and released.
    /// - Throws: ``PropertyListError`` `.limitExceeded`, with the key path, for a
    ///   container inside `maxDepth` others; the table is then unusable.
    @inline(__always) @discardableResult
    mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        switch value {
        case .string(let string):
            return addString(string)
        case .integer(let integer):
            return unique(integers.claim(UInt64(bitPattern: integer), next: offsets.count), value)
        case .unsignedInteger(let integer):
            return unique(unsignedIntegers.claim(integer, next: offsets.count), value)
        case .real(let real):
            return unique(doubles.claim(real.bitPattern, next: offsets.count), value)
        case .float(let float):
            return unique(floats.claim(UInt64(float.bitPattern), next: offsets.count), value)
        case .date(let date):
            return unique(dates.claim(date.timeIntervalSinceReferenceDate.bitPattern, next: offsets.count), value)
        case .data(let data):
            return unique(Self.claim(data, in: &datas, next: offsets.count), value)
        case .uid(let uid):
            return unique(uids.claim(uid.value, next: offsets.count), value)
        case .bool(let bool):
            return unique(Self.claim(bool, in: &booleans, next: offsets.count), value)
        case .array, .dictionary:
            return try addContainer(value, depth: depth)
        }
    }

    @inline(never)
    private mutating func addContainer(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        guard depth < maxDepth else { throw .nestedTooDeeply(maxDepth: maxDepth) }
        switch value {
        case .array(let elements):
            let (index, start) = number(marker: 0xA, count: elements.count)
            try elements.withUnsafeBufferPointer { elements throws(PropertyListError) in
                for position in elements.indices {
                    do throws(PropertyListError) {
                        references[start + position] = try add(elements[position], depth: depth + 1)
                    } catch {
                        throw error.inside(index: position)
                    }
                }
            }
            return index
        case .dictionary(let dictionary):
            let (index, start) = number(marker: 0xD, count: dictionary.count)
            try dictionary.withUnsafeEntries { entries throws(PropertyListError) in
                for position in entries.indices {
                    references[start + position] = addString(entries[position].key)
                }
                for position in entries.indices {
                    do throws(PropertyListError) {
                        references[start + entries.count + position] = try add(
                            entries[position].value, depth: depth + 1)
                    } catch {
                        throw error.inside(key: entries[position].key)
                    }
                }
            }
            return index
        default:
            return try add(value, depth: depth)
        }
    }

    /// The whole document: the objects in number order, each container between the
    /// scalars written before and after it was numbered; then the offset table and the
    /// trailer. The table is spent.
    mutating func finish() -> [UInt8] {
        let referenceSize = BinaryObjectEncoder.byteWidth(forMaximum: UInt64(offsets.count - 1))
        let scalars = output
        output = []
        var document: [UInt8] = []
        document.reserveCapacity(
            scalars.count + containerBytes(referenceSize: referenceSize) + (offsets.count + 4) * 8)
        // The scalars numbered since the last container moved by what went before them.
        var copied = scalars.startIndex
        var unplaced = 0
        func placeScalars(upTo end: Int, numberedBefore number: Int) {
            let shift = document.count - copied
            for scalar in unplaced..<number { offsets[scalar] += shift }
            document.append(contentsOf: scalars[copied..<end])
            copied = end
        }
        for container in containers {
            placeScalars(upTo: container.scalarsBefore, numberedBefore: container.number)
            unplaced = container.number + 1
            offsets[container.number] = document.count
            BinaryObjectEncoder.appendMarker(container.marker, count: container.count, to: &document)
            references[container.start..<container.start + container.referenceCount].withUnsafeBufferPointer {
                BinaryObjectEncoder.appendBigEndian($0, width: referenceSize, to: &document)
            }
        }
        placeScalars(upTo: scalars.endIndex, numberedBefore: offsets.count)
        BinaryObjectEncoder.appendOffsetTableAndTrailer(
            offsets: offsets, referenceSize: referenceSize, topObject: 0, to: &document)
        return document
    }

    /// The bytes the containers take: their markers and references.
    private func containerBytes(referenceSize: Int) -> Int {
        containers.reduce(0) { $0 + 9 + $1.referenceCount * referenceSize }
    }

    private mutating func addString(_ string: String) -> Int {
        let claim = strings.claim(string, next: offsets.count)
        guard claim.isNew else { return claim.index }
        offsets.append(output.count)
        BinaryObjectEncoder.appendString(string, to: &output)
        return claim.index
    }

    /// The object number `key` already has, or `next`, which it is given.
    private static func claim<Key: Hashable>(_ key: Key, in table: inout [Key: Int], next: Int) -> (
        index: Int, isNew: Bool
    ) {
        if let index = table[key] { return (index, false) }
        table[key] = next
        return (next, true)
    }

    /// The number `claim` found, writing `value` when it is the first of its kind.
    private mutating func unique(_ claim: (index: Int, isNew: Bool), _ value: PropertyListValue) -> Int {
        guard claim.isNew else { return claim.index }
        offsets.append(output.count)
        BinaryObjectEncoder.appendScalar(value, to: &output)
        return claim.index
    }

    /// Numbers a container of `count` elements (entries, for a dictionary) and makes
    /// room for its references; returns its number and where its references start.
    private mutating func number(marker: UInt8, count: Int) -> (number: Int, references: Int) {
        let container = Container(
            number: offsets.count, marker: marker, start: references.count, count: count,
            scalarsBefore: output.count)
        references.append(contentsOf: repeatElement(0, count: container.referenceCount))
        offsets.append(0)
        containers.append(container)
        return (container.number, container.start)
    }
}
