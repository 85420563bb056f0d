/// Random access to an archive's `$objects`, decoding one entry at a time.
///
/// A binary archive is never materialised as a whole: each entry is read from the
/// `bplist00` bytes when the unarchiver first asks for its UID, and key strings (which
/// writers store once) are decoded once. Archives in a text format are read to a tree
/// first and served from it. Every value produced counts against one running budget of
/// ``PropertyListLimits`` for the whole archive.
struct ArchiveObjects {
    private enum Storage {
        case binary(BinaryPropertyList, objectNumbers: [Int])
        case tree([PropertyListValue])
    }

    private let storage: Storage
    let limits: PropertyListLimits
    let count: Int
    private var keyStrings: [Int: String] = [:]
    private var valueCount = 0
    private var byteCount = 0

    /// Opens the archive and returns it with the fields of `$top`.
    /// - Throws: ``KeyedArchiveError``: `.invalidPropertyList`, `.unsupportedArchiver`,
    ///   `.unsupportedVersion`, `.missingTop`, `.missingObjects`.
    static func open(_ bytes: [UInt8], limits: PropertyListLimits) throws(KeyedArchiveError) -> (ArchiveObjects, top: InstanceFields) {
        guard let format = PropertyListFormat.detect(bytes) else {
            throw KeyedArchiveError(.invalidPropertyList, "empty input or not a property list")
        }
        do {
            if format == .binary {
                return try openBinary(BinaryPropertyList(bytes: bytes, limits: limits), limits: limits)
            }
            return try openTree(PropertyListReader(limits: limits).read(bytes, as: format), limits: limits)
        } catch let error as PropertyListError {
            throw KeyedArchiveError.propertyList(error)
        } catch let error as KeyedArchiveError {
            throw error
        } catch {
            throw KeyedArchiveError(.invalidPropertyList, "\(error)", underlyingError: error)
        }
    }

    private static func openBinary(_ plist: BinaryPropertyList, limits: PropertyListLimits) throws -> (ArchiveObjects, top: InstanceFields) {
        guard case .dictionary(let keys, let values) = try plist.object(at: plist.topObjectIndex) else {
            throw KeyedArchiveError(.unsupportedArchiver, "the property list is not a dictionary, so not a keyed archive")
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
        guard let topNumber = header["$top"], case .dictionary = try plist.object(at: topNumber) else {
            throw KeyedArchiveError(.missingTop, "no $top dictionary")
        }
        guard let objectsNumber = header["$objects"], case .array(let numbers) = try plist.object(at: objectsNumber),
            !numbers.isEmpty
        else {
            throw KeyedArchiveError(.missingObjects, "no $objects array, or an empty one")
        }
        var objects = ArchiveObjects(storage: .binary(plist, objectNumbers: numbers), limits: limits, count: numbers.count)
        guard case .instance(let top) = try objects.readBinaryObject(topNumber, plist: plist) else {
            throw KeyedArchiveError(.missingTop, "no $top dictionary")
        }
        return (objects, top)
    }

    private static func openTree(_ root: PropertyListValue, limits: PropertyListLimits) throws(KeyedArchiveError) -> (ArchiveObjects, top: InstanceFields) {
        guard case .dictionary(let header) = root else {
            throw KeyedArchiveError(.unsupportedArchiver, "the property list is not a dictionary, so not a keyed archive")
        }
        try checkHeader(archiver: header["$archiver"], version: header["$version"])
        guard case .dictionary(let top)? = header["$top"] else {
            throw KeyedArchiveError(.missingTop, "no $top dictionary")
        }
        guard case .array(let entries)? = header["$objects"], !entries.isEmpty else {
            throw KeyedArchiveError(.missingObjects, "no $objects array, or an empty one")
        }
        return (ArchiveObjects(storage: .tree(entries), limits: limits, count: entries.count), InstanceFields(top))
    }

    private static func checkHeader(archiver: PropertyListValue?, version: PropertyListValue?) throws(KeyedArchiveError) {
        guard case .string(ArchiveFormat.archiverName)? = archiver else {
            throw KeyedArchiveError(
                .unsupportedArchiver, "$archiver is \(archiver?.archiveDescription ?? "missing"), not NSKeyedArchiver")
        }
        guard case .integer(ArchiveFormat.version)? = version else {
            throw KeyedArchiveError(
                .unsupportedVersion, "$version is \(version?.archiveDescription ?? "missing"), not \(ArchiveFormat.version)")
        }
    }

    private init(storage: Storage, limits: PropertyListLimits, count: Int) {
        self.storage = storage
        self.limits = limits
        self.count = count
    }

    // MARK: Entries

    /// The entry with UID `uid`, which the caller has checked to be in range.
    /// - Throws: ``KeyedArchiveError``.
    mutating func entry(_ uid: Int) throws(KeyedArchiveError) -> ArchiveObjectEntry {
        try account(values: 1, bytes: 0)
        switch storage {
        case .binary(let plist, let numbers):
            do {
                return try readBinaryObject(numbers[uid], plist: plist)
            } catch let error as PropertyListError {
                throw KeyedArchiveError.propertyList(error, uid: uid)
            } catch let error as KeyedArchiveError {
                throw error
            } catch {
                throw KeyedArchiveError(.invalidPropertyList, "\(error)", uid: uid, underlyingError: error)
            }
        case .tree(let entries):
            switch entries[uid] {
            case .dictionary(let dictionary):
                return .instance(InstanceFields(dictionary))
            case let value:
                try account(values: 0, bytes: value.payloadByteCount)
                return .scalar(value)
            }
        }
    }

    private mutating func readBinaryObject(_ number: Int, plist: BinaryPropertyList) throws -> ArchiveObjectEntry {
        switch try plist.object(at: number) {
        case .scalar(let value):
            try account(values: 0, bytes: value.payloadByteCount)
            return .scalar(value)
        case .array:
            return .scalar(try materialize(number, plist: plist, depth: 0))
        case .dictionary(let keys, let values):
            var fields = InstanceFields()
            fields.keys.reserveCapacity(keys.count)
            fields.values.reserveCapacity(keys.count)
            for key in keys { fields.keys.append(try keyString(key, plist: plist)) }
            for value in values { fields.values.append(try materialize(value, plist: plist, depth: 0)) }
            return .instance(fields)
        }
    }

    private mutating func keyString(_ number: Int, plist: BinaryPropertyList) throws -> String {
        if let key = keyStrings[number] { return key }
        guard case .scalar(.string(let key)) = try plist.object(at: number) else {
            throw KeyedArchiveError(.invalidObject, "a dictionary key (object \(number)) is not a string")
        }
        try account(values: 0, bytes: key.utf8.count)
        keyStrings[number] = key
        return key
    }

    /// The value tree below a binary object, counted against the running budget each
    /// time it is reached, so shared structure cannot fan out unchecked.
    private mutating func materialize(_ number: Int, plist: BinaryPropertyList, depth: Int) throws -> PropertyListValue {
        switch try plist.object(at: number) {
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
                result[try keyString(key, plist: plist)] = try materialize(value, plist: plist, depth: depth + 1)
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
    mutating func account(values: Int, bytes: Int) throws(KeyedArchiveError) {
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

extension PropertyListValue {
    /// Bytes of string or data payload, for the byte budget.
    var payloadByteCount: Int {
        switch self {
        case .string(let string): string.utf8.count
        case .data(let data): data.count
        default: 0
        }
    }

    /// A short account of a value for error messages.
    var archiveDescription: String {
        switch self {
        case .string(let string): "the string \"\(string.count > 40 ? String(string.prefix(40)) + "…" : string)\""
        case .integer(let integer): "the integer \(integer)"
        case .unsignedInteger(let integer): "the integer \(integer)"
        case .real(let real): "the real \(real)"
        case .float(let float): "the real \(float)"
        case .bool(let bool): "the boolean \(bool)"
        case .date(let date): "the date \(date)"
        case .data(let data): "\(data.count) bytes of data"
        case .array(let elements): "an inline array of \(elements.count)"
        case .dictionary(let dictionary): "an inline dictionary of \(dictionary.count)"
        case .uid(let uid): "a reference to UID \(uid.value)"
        }
    }
}
