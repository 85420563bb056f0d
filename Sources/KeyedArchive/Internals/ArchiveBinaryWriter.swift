import Foundation

/// Writes finished archive content straight to `bplist00`, without building a
/// property-list tree first.
///
/// Object numbers are laid out so that most references are known without lookups:
/// the fixed frame (root dictionary, its keys, `$top`, the `$objects` array) first, then
/// one binary object per archive entry, then one UID object per entry (UID `k` is object
/// `uidBase + k`), then the keys and inline values the entries need, numbered as they
/// are first met and deduplicated (each key string is stored once). The reference width
/// is chosen from an upper bound of the object count, computed before writing.
struct ArchiveBinaryWriter {
    private let content: ArchiveContent
    private let entryBase = Frame.count
    private let uidBase: Int
    private let extraBase: Int
    private let referenceSize: Int

    private var output: [UInt8] = []
    private var extras: ExtraObjects
    private var strings: [ExactString: Int] = [:]
    private var integers: [Int64: Int] = [:]
    private var unsignedIntegers: [UInt64: Int] = [:]
    private var booleans: [Bool: Int] = [:]
    /// The key numbers of the last instance of a class, direct-mapped by class UID:
    /// instances of a class nearly always have the same keys in the same order, so a key
    /// is matched by a string comparison instead of a lookup.
    private var classKeys = [(classUID: Int, keys: [(key: String, number: Int)])](repeating: (-1, []), count: 64)
    private var classKeyNumber: Int?

    /// Object numbers of the fixed frame.
    private enum Frame {
        static let root = 0, versionKey = 1, version = 2, archiverKey = 3, archiver = 4
        static let topKey = 5, top = 6, objectsKey = 7, objects = 8
        static let count = 9
    }

    init(content: ArchiveContent) {
        self.content = content
        let entryCount = content.entries.count
        uidBase = Frame.count + entryCount
        extraBase = uidBase + entryCount
        var extrasBound = 2 + 2 * (content.fields.count + content.topFields.count)
        for entry in content.entries {
            if case .classDescription(let chain, let versions) = entry {
                extrasBound += 5 + chain.count + versions.count
            }
        }
        referenceSize = BinaryObjectEncoder.byteWidth(forMaximum: UInt64(extraBase + extrasBound))
        extras = ExtraObjects(base: extraBase)
        strings = [
            ExactString("$version"): Frame.versionKey, ExactString("$archiver"): Frame.archiverKey,
            ExactString(ArchiveFormat.archiverName): Frame.archiver, ExactString("$top"): Frame.topKey,
            ExactString("$objects"): Frame.objectsKey,
        ]
        integers = [ArchiveFormat.version: Frame.version]
    }

    consuming func write() -> [UInt8] {
        let entries = content.entries
        var offsets = [Int](repeating: 0, count: extraBase)
        output.reserveCapacity(64 + entries.count * 24 + content.fields.count * 4)
        output.append(contentsOf: "bplist00".utf8)

        offsets[Frame.root] = output.count
        output.append(0xD4)
        for number in [
            Frame.versionKey, Frame.archiverKey, Frame.topKey, Frame.objectsKey, Frame.version, Frame.archiver,
            Frame.top, Frame.objects,
        ] {
            appendReference(number)
        }
        for (number, text) in [(Frame.versionKey, "$version"), (Frame.archiverKey, "$archiver")] {
            offsets[number] = output.count
            BinaryObjectEncoder.appendString(text, to: &output)
        }
        offsets[Frame.version] = output.count
        BinaryObjectEncoder.appendInteger(ArchiveFormat.version, to: &output)
        offsets[Frame.archiver] = output.count
        BinaryObjectEncoder.appendString(ArchiveFormat.archiverName, to: &output)
        offsets[Frame.topKey] = output.count
        BinaryObjectEncoder.appendString("$top", to: &output)
        offsets[Frame.top] = output.count
        appendDictionary(classUID: nil, fields: content.topFields[...])
        offsets[Frame.objectsKey] = output.count
        BinaryObjectEncoder.appendString("$objects", to: &output)
        offsets[Frame.objects] = output.count
        BinaryObjectEncoder.appendMarker(0xA, count: entries.count, to: &output)
        for uid in 0..<entries.count { appendReference(entryBase + uid) }

        for (uid, entry) in entries.enumerated() {
            offsets[entryBase + uid] = output.count
            appendEntry(entry)
        }
        for uid in 0..<entries.count {
            offsets[uidBase + uid] = output.count
            BinaryObjectEncoder.appendScalar(.uid(PropertyListUID(UInt64(uid))), to: &output)
        }

        let extrasStart = output.count
        output.append(contentsOf: extras.bytes)
        BinaryObjectEncoder.appendOffsetTableAndTrailer(
            offsets: offsets + extras.offsets.map { extrasStart + $0 }, referenceSize: referenceSize,
            topObject: Frame.root, to: &output)
        return output
    }

    // MARK: Entries

    private mutating func appendEntry(_ entry: ArchiveEntry) {
        switch entry {
        case .string(let string): BinaryObjectEncoder.appendString(string, to: &output)
        case .data(let data): BinaryObjectEncoder.appendScalar(.data(data), to: &output)
        case .integer(let integer): BinaryObjectEncoder.appendInteger(integer, to: &output)
        case .unsignedInteger(let integer): BinaryObjectEncoder.appendScalar(.unsignedInteger(integer), to: &output)
        case .real(let real): BinaryObjectEncoder.appendScalar(.real(real), to: &output)
        case .float(let float): BinaryObjectEncoder.appendScalar(.float(float), to: &output)
        case .bool(let bool): output.append(bool ? 0x09 : 0x08)
        case .instance(let classUID, let range): appendDictionary(classUID: classUID, fields: content.fields[range])
        case .classDescription(let chain, let versions): appendClassDescription(chain: chain, versions: versions)
        case .pending: BinaryObjectEncoder.appendString(ArchiveFormat.null, to: &output)
        }
    }

    /// An instance dictionary (`$class` first) or `$top` (no class).
    private mutating func appendDictionary(classUID: Int?, fields: ArraySlice<ArchiveField>) {
        BinaryObjectEncoder.appendMarker(0xD, count: fields.count + (classUID == nil ? 0 : 1), to: &output)
        if let classUID {
            let classKey = classKeyNumber ?? stringNumber("$class")
            classKeyNumber = classKey
            appendReference(classKey)
            let slot = classUID & (classKeys.count - 1)
            if classKeys[slot].classUID != classUID { classKeys[slot] = (classUID, []) }
            for (position, field) in fields.enumerated() {
                if position < classKeys[slot].keys.count, classKeys[slot].keys[position].key == field.key {
                    appendReference(classKeys[slot].keys[position].number)
                    continue
                }
                let number = stringNumber(field.key)
                if position < classKeys[slot].keys.count {
                    classKeys[slot].keys[position] = (field.key, number)
                } else {
                    classKeys[slot].keys.append((field.key, number))
                }
                appendReference(number)
            }
            appendReference(uidBase + classUID)
        } else {
            for field in fields { appendReference(stringNumber(field.key)) }
        }
        for field in fields { appendReference(valueNumber(field.value)) }
    }

    private mutating func appendClassDescription(chain: [String], versions: [Int]) {
        var keys = [stringNumber("$classes"), stringNumber("$classname")]
        var values = [newArray(chain.map { stringNumber($0) }), stringNumber(chain[0])]
        if !versions.isEmpty {
            keys.append(stringNumber("$classversions"))
            values.append(newArray(versions.map { integerNumber(Int64($0)) }))
        }
        BinaryObjectEncoder.appendMarker(0xD, count: keys.count, to: &output)
        for number in keys + values { appendReference(number) }
    }

    // MARK: Extras (keys and inline values)

    private mutating func valueNumber(_ value: ArchiveFieldValue) -> Int {
        switch value {
        case .uid(let uid): return uidBase + uid
        case .conditional: return valueNumber(content.resolve(value))
        case .integer(let integer): return integerNumber(integer)
        case .unsignedInteger(let integer):
            return extras.unique(integer, in: &unsignedIntegers) {
                BinaryObjectEncoder.appendScalar(.unsignedInteger(integer), to: &$0)
            }
        case .real(let real):
            // Reals are mostly times and measures, rarely repeated: not worth a lookup.
            return extras.add { BinaryObjectEncoder.appendScalar(.real(real), to: &$0) }
        case .float(let float):
            return extras.add { BinaryObjectEncoder.appendScalar(.float(float), to: &$0) }
        case .bool(let bool):
            return extras.unique(bool, in: &booleans) { $0.append(bool ? 0x09 : 0x08) }
        case .data(let data):
            return extras.add { BinaryObjectEncoder.appendScalar(.data(data), to: &$0) }
        case .uids(let range):
            let (uidBase, width, pool) = (uidBase, referenceSize, content.uidPool)
            return extras.add { bytes in
                BinaryObjectEncoder.appendMarker(0xA, count: range.count, to: &bytes)
                for uid in pool[range] { Self.appendReference(uidBase + uid, width: width, to: &bytes) }
            }
        }
    }

    private mutating func stringNumber(_ string: String) -> Int {
        extras.unique(ExactString(string), in: &strings) { BinaryObjectEncoder.appendString(string, to: &$0) }
    }

    private mutating func integerNumber(_ integer: Int64) -> Int {
        extras.unique(integer, in: &integers) { BinaryObjectEncoder.appendInteger(integer, to: &$0) }
    }

    /// An array of already numbered objects.
    private mutating func newArray(_ numbers: [Int]) -> Int {
        let width = referenceSize
        return extras.add { bytes in
            BinaryObjectEncoder.appendMarker(0xA, count: numbers.count, to: &bytes)
            for element in numbers { Self.appendReference(element, width: width, to: &bytes) }
        }
    }

    private mutating func appendReference(_ number: Int) {
        Self.appendReference(number, width: referenceSize, to: &output)
    }

    private static func appendReference(_ number: Int, width: Int, to output: inout [UInt8]) {
        BinaryObjectEncoder.appendBigEndian(UInt64(number), width: width, to: &output)
    }

    /// The objects written after the UIDs, numbered from `base` in the order they are added.
    private struct ExtraObjects {
        let base: Int
        var bytes: [UInt8] = []
        var offsets: [Int] = []

        mutating func add(_ write: (inout [UInt8]) -> Void) -> Int {
            offsets.append(bytes.count)
            write(&bytes)
            return base + offsets.count - 1
        }

        /// The number of the object `key` already has, or of a new one `write` adds.
        mutating func unique<Key: Hashable>(_ key: Key, in table: inout [Key: Int], write: (inout [UInt8]) -> Void)
            -> Int
        {
            let number = table.number(of: key, givingIfMissing: base + offsets.count)
            if number == base + offsets.count { _ = add(write) }
            return number
        }
    }
}
