import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to an archive's `$objects`, decoding one entry at a time.
///
/// A binary archive is never materialised as a whole: each entry is read from the
/// `bplist00` bytes when the unarchiver first asks for its UID, and an object's
/// dictionary is searched in place (see ``InstanceFields``). Archives in a text format
/// are read to a tree first and served from it. Every value produced counts against one
/// running budget of ``PropertyListLimits`` for the whole archive.
///
/// A class, so the unarchiver reaches it without copying or exclusivity bookkeeping on
/// every field access.
final class ArchiveObjects {
    /// A binary document, read in place through the property-list layer's one binary
    /// reader, or `nil` for a text one read to `tree`. The per-field reads below reach
    /// it by optional chaining or `!` after a check, which borrow it; `guard let` would
    /// copy it on every field.
    private let plist: BinaryPropertyList?
    /// The object number of each `$objects` entry of a binary document.
    private let numbers: [Int]
    /// The entries of a text document.
    private let tree: [PropertyListValue]
    let limits: PropertyListLimits
    let count: Int
    // Only ever changed by `account`, never across a call: no access can overlap, so the
    // dynamic exclusivity checks are off here and below, except in debug builds, which
    // define KEEPSAKE_EXCLUSIVITY_CHECKS (Package.swift).
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    private var valueCount = 0
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    private var byteCount = 0
    /// Key strings by object number, direct-mapped: writers that store each key string
    /// once (Apple's, ours) repeat a handful of numbers in every object, whose keys are
    /// then compared as Swift strings without being read again. Only `binaryKey` and
    /// `keyString(_:)` touch them, between calls.
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    private var keyNumbers = [Int](repeating: -1, count: keyCacheSize)
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    private var numberedKeys = [String](repeating: "", count: keyCacheSize)
    /// Key strings by a hash of their bytes, direct-mapped: a writer that stores every
    /// key once per object (swift-corelibs Foundation's) gives each object key objects
    /// of its own, with the same few texts, whose strings are then made once. Made when
    /// the number cache has missed more often than it has slots, so a small archive
    /// does not pay for it. Only `keyString(_:)` and `asciiKey(_:)` touch them, between
    /// calls.
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    private var keyStrings: [String] = []
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    private var keyMisses = 0
    private static let keyCacheSize = 256

    /// Opens the archive and returns it with the fields of `$top`.
    /// - Throws: ``KeyedArchiveError``: `.invalidPropertyList`, `.unsupportedArchiver`,
    ///   `.unsupportedVersion`, `.missingTop`, `.missingObjects`.
    static func open(_ bytes: some ContiguousBytes, limits: PropertyListLimits) throws(KeyedArchiveError) -> (
        objects: ArchiveObjects, top: InstanceFields
    ) {
        let opened = bytes.withUnsafeBytes { raw in
            Result { () throws(KeyedArchiveError) in try open(raw, limits: limits) }
        }
        return try opened.get()
    }

    /// Opens the binary archive `source` holds, read whole at once, and returns it with
    /// the fields of `$top`.
    /// - Throws: ``KeyedArchiveError``, as ``open(_:limits:)``.
    static func open(binaryArchive source: any RandomAccessBytes, limits: PropertyListLimits)
        throws(KeyedArchiveError) -> (objects: ArchiveObjects, top: InstanceFields)
    {
        do {
            return try openBinary(BinaryPropertyList(readingAll: source, limits: limits), limits: limits)
        } catch {
            throw mapped(error)
        }
    }

    /// A binary archive is copied once into the document that the decoder reads; a
    /// text one is read to a tree.
    private static func open(_ bytes: UnsafeRawBufferPointer, limits: PropertyListLimits) throws(KeyedArchiveError)
        -> (objects: ArchiveObjects, top: InstanceFields)
    {
        guard let format = PropertyListFormat.detect(bytes) else {
            throw KeyedArchiveError(.invalidPropertyList, "empty input or not a property list")
        }
        do {
            if format == .binary {
                return try openBinary(BinaryPropertyList(copying: bytes, limits: limits), limits: limits)
            }
            return try openTree(PropertyListReader(limits: limits).read([UInt8](bytes), as: format), limits: limits)
        } catch {
            throw mapped(error)
        }
    }

    private static func mapped(_ error: any Error) -> KeyedArchiveError {
        switch error {
        case let error as PropertyListError: KeyedArchiveError.propertyList(error)
        case let error as KeyedArchiveError: error
        default: KeyedArchiveError(.invalidPropertyList, "the archive cannot be read", underlyingError: error)
        }
    }

    private static func openBinary(_ plist: BinaryPropertyList, limits: PropertyListLimits) throws -> (
        ArchiveObjects, top: InstanceFields
    ) {
        guard case .dictionary(let keys, let values) = try plist.object(at: plist.topObjectIndex) else {
            throw KeyedArchiveError(
                .unsupportedArchiver, "the property list is not a dictionary, so not a keyed archive")
        }
        var header: [String: Int] = [:]
        for (position, key) in keys.enumerated() {
            if case .scalar(.string(let name)) = try plist.object(at: key) { header[name] = values[position] }
        }
        func scalar(_ key: String) throws -> PropertyListValue? {
            guard let number = header[key], case .scalar(let value) = try plist.object(at: number) else { return nil }
            return value
        }
        try checkHeader(archiver: scalar("$archiver"), version: scalar("$version"))
        guard let topNumber = header["$top"], let top = try plist.dictionaryExtent(ofObject: topNumber) else {
            throw KeyedArchiveError(.missingTop, "no $top dictionary")
        }
        guard let objectsNumber = header["$objects"], case .array(let numbers) = try plist.object(at: objectsNumber),
            !numbers.isEmpty
        else {
            throw KeyedArchiveError(.missingObjects, "no $objects array, or an empty one")
        }
        let objects = ArchiveObjects(plist: plist, numbers: numbers, tree: [], limits: limits)
        return (objects, InstanceFields(payload: top.payload, count: top.count))
    }

    private static func openTree(_ root: PropertyListValue, limits: PropertyListLimits) throws(KeyedArchiveError) -> (
        ArchiveObjects, top: InstanceFields
    ) {
        guard case .dictionary(let header) = root else {
            throw KeyedArchiveError(
                .unsupportedArchiver, "the property list is not a dictionary, so not a keyed archive")
        }
        try checkHeader(archiver: header["$archiver"], version: header["$version"])
        guard case .dictionary(let top)? = header["$top"] else {
            throw KeyedArchiveError(.missingTop, "no $top dictionary")
        }
        guard case .array(let entries)? = header["$objects"], !entries.isEmpty else {
            throw KeyedArchiveError(.missingObjects, "no $objects array, or an empty one")
        }
        return (ArchiveObjects(plist: nil, numbers: [], tree: entries, limits: limits), InstanceFields(top))
    }

    private static func checkHeader(archiver: PropertyListValue?, version: PropertyListValue?) throws(KeyedArchiveError)
    {
        guard case .string(ArchiveFormat.archiverName)? = archiver else {
            throw KeyedArchiveError(
                .unsupportedArchiver, "$archiver is \(archiver?.archiveDescription ?? "missing"), not NSKeyedArchiver")
        }
        guard case .integer(ArchiveFormat.version)? = version else {
            throw KeyedArchiveError(
                .unsupportedVersion,
                "$version is \(version?.archiveDescription ?? "missing"), not \(ArchiveFormat.version)")
        }
    }

    private init(plist: BinaryPropertyList?, numbers: [Int], tree: [PropertyListValue], limits: PropertyListLimits) {
        self.plist = plist
        self.numbers = numbers
        self.tree = tree
        self.limits = limits
        count = plist == nil ? tree.count : numbers.count
    }

    // MARK: Entries

    /// The entry with UID `uid`, which the caller has checked to be in range.
    /// - Throws: ``KeyedArchiveError``.
    func entry(_ uid: Int) throws(KeyedArchiveError) -> ArchiveObjectEntry {
        try account(values: 1, bytes: 0)
        if plist != nil {
            let number = numbers[uid]
            let extent: (payload: Int, count: Int)?
            do {
                extent = try plist!.dictionaryExtent(ofObject: number)
            } catch {
                throw KeyedArchiveError.propertyList(error, uid: uid)
            }
            if let extent { return .instance(InstanceFields(payload: extent.payload, count: extent.count)) }
            return .scalar(try materialize(number, plist: plist!, depth: 0))
        }
        switch tree[uid] {
        case .dictionary(let dictionary):
            return .instance(InstanceFields(dictionary))
        case let value:
            try account(values: 0, bytes: value.payloadByteCount)
            return .scalar(value)
        }
    }

    /// The text of entry `uid`, which the caller has checked to be in range, when it is
    /// an ASCII string of a binary archive: where it lies in the document (which lives
    /// as long as this object), counted as ``entry(_:)`` and the string it makes count;
    /// `nil` for any other entry.
    /// - Throws: ``KeyedArchiveError`` `.limitExceeded`.
    func asciiText(_ uid: Int) throws(KeyedArchiveError) -> UnsafeRawBufferPointer? {
        guard let text = plist?.asciiString(ofObject: numbers[uid]) else { return nil }
        try account(values: 2, bytes: text.count)
        return text
    }

    // MARK: Fields

    /// The position of `key` among `fields`, trying `hint` first: decoders read keys in
    /// the order they were written, so the search usually succeeds at once.
    func position(of key: String, in fields: InstanceFields, hint: Int = 0) -> Int? {
        switch fields.storage {
        case .tree(let keys, _):
            if hint < keys.count, keys[hint] == key { return hint }
            return keys.firstIndex(of: key)
        case .binary(let payload):
            if hint < fields.count, binaryKey(at: hint, payload: payload, equals: key) { return hint }
            for position in 0..<fields.count where binaryKey(at: position, payload: payload, equals: key) {
                return position
            }
            return nil
        }
    }

    /// Whether the key at `position` is `key`, as Swift compares strings.
    private func binaryKey(at position: Int, payload: Int, equals key: String) -> Bool {
        guard let number = plist?.reference(at: payload, position: position) else { return false }
        let slot = number & (Self.keyCacheSize - 1)
        // The common case, compared where it is cached.
        if keyNumbers[slot] == number { return numberedKeys[slot] == key }
        return keyString(number) == key
    }

    /// The key object `number` as a string, `nil` when it is not a string: from the
    /// number cache, else from the text cache for an ASCII key, else decoded.
    private func keyString(_ number: Int) -> String? {
        let slot = number & (Self.keyCacheSize - 1)
        if keyNumbers[slot] == number { return numberedKeys[slot] }
        keyMisses += 1
        let string: String
        if keyMisses > Self.keyCacheSize, let text = plist?.asciiString(ofObject: number) {
            string = asciiKey(text)
        } else if case .scalar(.string(let decoded))? = try? plist?.object(at: number) {
            string = decoded
        } else {
            return nil
        }
        keyNumbers[slot] = number
        numberedKeys[slot] = string
        return string
    }

    /// The string of the ASCII key `text`, made once per text (see `keyStrings`).
    private func asciiKey(_ text: UnsafeRawBufferPointer) -> String {
        if keyStrings.isEmpty { keyStrings = Array(repeating: "", count: Self.keyCacheSize) }
        var hash: UInt32 = 2_166_136_261
        for byte in text { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let slot = Int(hash) & (Self.keyCacheSize - 1)
        let known = keyStrings[slot].withUTF8Bytes { known in
            known.count == text.count
                && (text.isEmpty || memcmp(known.baseAddress!, text.baseAddress!, text.count) == 0)
        }
        if known { return keyStrings[slot] }
        let key = String(decoding: text, as: UTF8.self)
        keyStrings[slot] = key
        return key
    }

    /// The key at `position`.
    /// - Throws: `.invalidObject` when a binary dictionary's key is not a string.
    func key(at position: Int, in fields: InstanceFields) throws(KeyedArchiveError) -> String {
        switch fields.storage {
        case .tree(let keys, _):
            return keys[position]
        case .binary(let payload):
            guard let number = plist?.reference(at: payload, position: position), let key = keyString(number) else {
                throw KeyedArchiveError(.invalidObject, "a dictionary key is not a string")
            }
            return key
        }
    }

    /// The stored value at `position`: scalars and UIDs as they are, inline containers
    /// materialised within the budget.
    /// - Throws: ``KeyedArchiveError``.
    func value(at position: Int, in fields: InstanceFields) throws(KeyedArchiveError) -> PropertyListValue {
        switch fields.storage {
        case .tree(_, let values):
            return values[position]
        case .binary(let payload):
            guard let number = plist?.reference(at: payload, position: fields.count + position) else {
                throw KeyedArchiveError(.invalidObject, "a dictionary value is missing")
            }
            return try materialize(number, plist: plist!, depth: 0)
        }
    }

    /// ``value(at:in:)`` when it is a UID, counted as that call counts it, without making
    /// a value; `nil` for any other value.
    /// - Throws: ``KeyedArchiveError`` `.limitExceeded`.
    func reference(at position: Int, in fields: InstanceFields) throws(KeyedArchiveError) -> PropertyListUID? {
        switch fields.storage {
        case .tree(_, let values):
            if case .uid(let uid) = values[position] { return uid }
            return nil
        case .binary(let payload):
            guard let uid = plist?.uid(referencedAt: payload, position: fields.count + position) else { return nil }
            try account(values: 1, bytes: 0)
            return PropertyListUID(uid)
        }
    }

    /// The value at `position` if it is a number, boolean or UID stored inline; `nil`
    /// for anything else, which ``value(at:in:)`` reads.
    @inline(__always)
    func inlineScalar(at position: Int, in fields: InstanceFields) -> PropertyListValue? {
        switch fields.storage {
        case .tree(_, let values):
            return values[position]
        case .binary(let payload):
            return plist?.simpleScalar(referencedAt: payload, position: fields.count + position)
        }
    }

    /// The value at `position` if it is a UID (`nil` for anything else, which
    /// ``value(at:in:)`` reads): the common case, without making a value.
    @inline(__always)
    func uid(at position: Int, in fields: InstanceFields) -> PropertyListUID? {
        switch fields.storage {
        case .tree(_, let values):
            if case .uid(let uid) = values[position] { return uid }
            return nil
        case .binary(let payload):
            return plist?.uid(referencedAt: payload, position: fields.count + position).map(PropertyListUID.init)
        }
    }

    /// The value tree below a binary object, counted against the running budget each
    /// time it is reached, so shared structure cannot fan out unchecked.
    private func materialize(_ number: Int, plist: BinaryPropertyList, depth: Int) throws(KeyedArchiveError)
        -> PropertyListValue
    {
        if let scalar = plist.simpleScalar(ofObject: number) {
            try account(values: 1, bytes: scalar.payloadByteCount)
            return scalar
        }
        let object: BinaryPropertyList.Object
        do {
            object = try plist.object(at: number)
        } catch {
            throw KeyedArchiveError.propertyList(error)
        }
        switch object {
        case .scalar(let value):
            try account(values: 1, bytes: value.payloadByteCount)
            return value
        case .array(let elements):
            try checkDepth(depth)
            try account(values: 1, bytes: 0)
            var result: [PropertyListValue] = []
            result.reserveCapacity(elements.count)
            for element in elements { result.append(try materialize(element, plist: plist, depth: depth + 1)) }
            return .array(result)
        case .dictionary(let keys, let values):
            try checkDepth(depth)
            try account(values: 1, bytes: 0)
            var result = PropertyListDictionary(minimumCapacity: keys.count)
            for (key, value) in zip(keys, values) {
                guard case .scalar(.string(let name)) = try? plist.object(at: key) else {
                    throw KeyedArchiveError(.invalidObject, "a dictionary key is not a string")
                }
                result[name] = try materialize(value, plist: plist, depth: depth + 1)
            }
            return .dictionary(result)
        }
    }

    private func checkDepth(_ depth: Int) throws(KeyedArchiveError) {
        guard depth < limits.maxDepth else {
            throw KeyedArchiveError(.limitExceeded, "inline values nested deeper than \(limits.maxDepth)")
        }
    }

    /// Counts values and bytes produced against ``limits``.
    func account(values: Int, bytes: Int) throws(KeyedArchiveError) {
        valueCount &+= values
        byteCount &+= bytes
        guard valueCount <= limits.maxObjectCount else {
            throw KeyedArchiveError(.limitExceeded, "more than \(limits.maxObjectCount) values")
        }
        guard byteCount <= limits.maxByteCount else {
            throw KeyedArchiveError(.limitExceeded, "more than \(limits.maxByteCount) bytes of strings and data")
        }
    }
}
