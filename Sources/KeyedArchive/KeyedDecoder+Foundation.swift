import Foundation

// Foundation's value classes, decoded into Swift values.

extension KeyedDecoder {
    /// An inline string, or an `NSString`/`NSMutableString` with `NS.string`.
    func decodeString(uid: Int, entry: ArchiveObjectEntry? = nil) throws(KeyedArchiveError) -> String {
        switch slots[uid] {
        case .string(let string): return string
        case .empty: break
        default: if let known = try memoizedValue(uid, as: String.self) { return known }
        }
        let entry = if let entry { entry } else { try readEntry(uid) }
        switch entry {
        case .scalar(.string(let string)):
            slots[uid] = .string(string)
            return string
        case .scalar(let value):
            throw KeyedArchiveError(.typeMismatch, "expected a string, found \(value.archiveDescription)", uid: uid)
        case .instance:
            let string = try memoized(uid, as: String.self, entry: entry) { (entry) throws(KeyedArchiveError) in
                let fields = try foundationFields(entry, kind: .string, uid: uid)
                switch try field("NS.string", in: fields) {
                case .string(let string)?: return string
                case .uid(let reference)?: return try decodeString(uid: checkedUID(reference))
                default: throw KeyedArchiveError(.invalidObject, "NSString without an NS.string string", uid: uid)
                }
            }
            slots[uid] = .string(string)
            return string
        }
    }

    /// Inline data, or an `NSData`/`NSMutableData` with `NS.data` or `NS.bytes`.
    func decodeData(uid: Int, entry: ArchiveObjectEntry? = nil) throws(KeyedArchiveError) -> Data {
        if case .data(let data) = slots[uid] { return data }
        if let known = try memoizedValue(uid, as: Data.self) { return known }
        let entry = if let entry { entry } else { try readEntry(uid) }
        switch entry {
        case .scalar(.data(let data)):
            slots[uid] = .data(data)
            return data
        case .scalar(let value):
            throw KeyedArchiveError(.typeMismatch, "expected data, found \(value.archiveDescription)", uid: uid)
        case .instance:
            let data = try memoized(uid, as: Data.self, entry: entry) { (entry) throws(KeyedArchiveError) in
                let fields = try foundationFields(entry, kind: .data, uid: uid)
                var stored = try field("NS.data", in: fields)
                if stored == nil { stored = try field("NS.bytes", in: fields) }
                switch stored {
                case .data(let data)?: return data
                case .uid(let reference)?: return try decodeData(uid: checkedUID(reference))
                default: throw KeyedArchiveError(.invalidObject, "NSData without NS.data or NS.bytes", uid: uid)
                }
            }
            slots[uid] = .data(data)
            return data
        }
    }

    /// An `NSDate` (`NS.time`, seconds since 2001), or a plain date entry. Dates refer
    /// to nothing, so they are read again rather than memoised.
    func decodeDate(uid: Int, entry: ArchiveObjectEntry? = nil) throws(KeyedArchiveError) -> Date {
        let entry = if let entry { entry } else { try leafEntry(uid) }
        if case .scalar(.date(let date)) = entry { return date }
        return try date(from: foundationFields(entry, kind: .date, uid: uid), uid: uid)
    }

    /// The date of an `NSDate`'s fields.
    func date(from fields: InstanceFields, uid: Int) throws(KeyedArchiveError) -> Date {
        guard let seconds = try field("NS.time", in: fields).flatMap(Double.init(archived:)) else {
            throw KeyedArchiveError(.invalidObject, "NSDate without a numeric NS.time", uid: uid)
        }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// An `NSUUID` with 16 bytes in `NS.uuidbytes`; read again rather than memoised.
    func decodeUUID(uid: Int, entry: ArchiveObjectEntry? = nil) throws(KeyedArchiveError) -> UUID {
        let entry = if let entry { entry } else { try leafEntry(uid) }
        let fields = try foundationFields(entry, kind: .uuid, uid: uid)
        guard case .data(let bytes)? = try field("NS.uuidbytes", in: fields), bytes.count == 16 else {
            throw KeyedArchiveError(.invalidObject, "NSUUID without 16 bytes in NS.uuidbytes", uid: uid)
        }
        var uuid = UUID().uuid
        withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: bytes) }
        return UUID(uuid: uuid)
    }

    /// The entry of a value that refers to nothing, checking only that the UID is not
    /// an object being decoded or a class description.
    private func leafEntry(_ uid: Int) throws(KeyedArchiveError) -> ArchiveObjectEntry {
        guard uid != 0 else { throw KeyedArchiveError(.typeMismatch, "expected a value, found nil", uid: 0) }
        switch slots[uid] {
        case .decoding, .classDescription: _ = try memoizedValue(uid, as: Any.self)
        default: break
        }
        return try readEntry(uid)
    }

    /// An `NSURL`: `NS.relative` resolved against `NS.base`.
    func decodeURL(uid: Int, entry: ArchiveObjectEntry? = nil) throws(KeyedArchiveError) -> URL {
        try memoized(uid, as: URL.self, entry: entry) { (entry) throws(KeyedArchiveError) in
            let fields = try foundationFields(entry, kind: .url, uid: uid)
            let relative: String
            switch try field("NS.relative", in: fields) {
            case .string(let string)?: relative = string
            case .uid(let reference)? where reference.value != 0:
                relative = try decodeString(uid: checkedUID(reference))
            default: throw KeyedArchiveError(.invalidObject, "NSURL without an NS.relative string", uid: uid)
            }
            var base: URL?
            if case .uid(let reference)? = try field("NS.base", in: fields), reference.value != 0 {
                base = try decodeURL(uid: checkedUID(reference))
            }
            guard let url = URL(string: relative, relativeTo: base) else {
                throw KeyedArchiveError(
                    .invalidObject, "NSURL with an invalid NS.relative \"\(relative.prefix(80))\"", uid: uid)
            }
            return url
        }
    }

    /// An `NSArray` (or, with `kind` `.set`, an `NSSet` read in stored order): the
    /// references of `NS.objects`, each decoded by `element`.
    func decodeArray<Element>(
        uid: Int, expecting kind: FoundationClass = .array, entry: ArchiveObjectEntry? = nil,
        element: (Int) throws(KeyedArchiveError) -> Element
    ) throws(KeyedArchiveError) -> [Element] {
        try memoized(uid, as: [Element].self, entry: entry) { (entry) throws(KeyedArchiveError) in
            try countCollection(kind, uid: uid)
            return try elements(of: entry, kind: kind, uid: uid, element: element)
        }
    }

    /// An `NSSet`, memoised as a set so typed and untyped reads of it agree.
    func decodeSet<Element: Hashable>(
        uid: Int, entry: ArchiveObjectEntry? = nil, element: (Int) throws(KeyedArchiveError) -> Element
    ) throws(KeyedArchiveError) -> Set<Element> {
        try memoized(uid, as: Set<Element>.self, entry: entry) { (entry) throws(KeyedArchiveError) in
            try countCollection(.set, uid: uid)
            return Set(try elements(of: entry, kind: .set, uid: uid, element: element))
        }
    }

    private func elements<Element>(
        of entry: ArchiveObjectEntry, kind: FoundationClass, uid: Int,
        element: (Int) throws(KeyedArchiveError) -> Element
    ) throws(KeyedArchiveError) -> [Element] {
        let fields = try foundationFields(entry, kind: kind, uid: uid)
        let references = try referenceList(fields, key: "NS.objects", uid: uid)
        var result: [Element] = []
        result.reserveCapacity(references.count)
        for (position, reference) in references.enumerated() {
            do throws(KeyedArchiveError) {
                result.append(try element(try nonNull(reference, uid: uid)))
            } catch {
                throw error.prefixed(by: "[\(position)]")
            }
        }
        return result
    }

    /// An `NSDictionary`: `NS.keys` and `NS.objects` of equal length.
    func decodeDictionary<Key: Hashable, Value>(
        uid: Int, entry: ArchiveObjectEntry? = nil,
        key decodeKey: (Int) throws(KeyedArchiveError) -> Key,
        value decodeValue: (Int) throws(KeyedArchiveError) -> Value
    ) throws(KeyedArchiveError) -> [Key: Value] {
        try memoized(uid, as: [Key: Value].self, entry: entry) { (entry) throws(KeyedArchiveError) in
            try countCollection(.dictionary, uid: uid)
            let fields = try foundationFields(entry, kind: .dictionary, uid: uid)
            let keys = try referenceList(fields, key: "NS.keys", uid: uid)
            let values = try referenceList(fields, key: "NS.objects", uid: uid)
            guard keys.count == values.count else {
                throw KeyedArchiveError(
                    .invalidObject, "NSDictionary with \(keys.count) keys but \(values.count) objects", uid: uid)
            }
            var result: [Key: Value] = [:]
            result.reserveCapacity(keys.count)
            for position in keys.indices {
                do throws(KeyedArchiveError) {
                    let key = try decodeKey(try nonNull(keys[position], uid: uid))
                    result[key] = try decodeValue(try nonNull(values[position], uid: uid))
                } catch {
                    throw error.prefixed(by: "[\(position)]")
                }
            }
            return result
        }
    }

    /// The value under an inline list of UIDs, checked and counted.
    func referenceList(_ fields: InstanceFields, key: String, uid: Int) throws(KeyedArchiveError) -> [Int] {
        guard case .array(let elements)? = try field(key, in: fields) else {
            throw KeyedArchiveError(.invalidObject, "\(key) is missing or not an array", uid: uid)
        }
        try objects.account(values: elements.count, bytes: 0)
        var references: [Int] = []
        references.reserveCapacity(elements.count)
        for element in elements {
            guard case .uid(let reference) = element else {
                throw KeyedArchiveError(
                    .invalidObject, "\(key) holds \(element.archiveDescription), not a UID", uid: uid)
            }
            references.append(try checkedUID(reference))
        }
        return references
    }

    /// Foundation collections cannot hold `nil`.
    private func nonNull(_ reference: Int, uid: Int) throws(KeyedArchiveError) -> Int {
        guard reference != 0 else {
            throw KeyedArchiveError(.invalidObject, "a collection element is nil", uid: uid)
        }
        return reference
    }

    /// A number or boolean entry (`NSNumber`).
    func scalarEntry(uid: Int) throws(KeyedArchiveError) -> PropertyListValue {
        guard uid != 0 else { throw KeyedArchiveError(.typeMismatch, "expected a number, found nil", uid: 0) }
        switch try readEntry(uid) {
        case .scalar(let value):
            return value
        case .instance(let fields):
            let name = (try? archivedClass(of: fields, uid: uid))?.name ?? "an object"
            throw KeyedArchiveError(.typeMismatch, "expected a number, found \(name)", uid: uid, className: name)
        }
    }

    /// Any Foundation property-list object as a ``PropertyListValue``.
    func decodePropertyListValue(uid: Int) throws(KeyedArchiveError) -> PropertyListValue {
        guard uid != 0 else { return .string(ArchiveFormat.null) }
        if case .string(let string) = slots[uid] { return .string(string) }
        if case .data(let data) = slots[uid] { return .data(data) }
        let entry = try readEntry(uid)
        guard case .instance(let fields) = entry else {
            guard case .scalar(let value) = entry else { preconditionFailure("two cases") }
            if case .uid = value {
                throw KeyedArchiveError(.invalidObject, "an $objects entry is itself a UID", uid: uid)
            }
            switch value {
            case .array, .dictionary:
                // Memoised like every object built from others, so a plain array that
                // refers to itself is a cycle and shared ones are decoded once.
                return try memoized(uid, as: PropertyListValue.self, entry: entry) { _ throws(KeyedArchiveError) in
                    try PropertyListValue._decodeField(value, from: self)
                }
            default:
                // A leaf: no level of nesting, as the archiver does not count one.
                return value
            }
        }
        let archivedClass = try archivedClass(of: fields, uid: uid)
        let elementValue = { (uid: Int) throws(KeyedArchiveError) -> PropertyListValue in
            try self.decodePropertyListValue(uid: uid)
        }
        switch archivedClass.foundationKind {
        case .string?: return .string(try decodeString(uid: uid, entry: entry))
        case .data?: return .data(try decodeData(uid: uid, entry: entry))
        case .date?: return .date(try decodeDate(uid: uid, entry: entry))
        case .uuid?: return .string(try decodeUUID(uid: uid, entry: entry).uuidString)
        case .url?: return .string(try decodeURL(uid: uid, entry: entry).absoluteString)
        case .array?: return .array(try decodeArray(uid: uid, entry: entry, element: elementValue))
        case .set?: return .array(try decodeArray(uid: uid, expecting: .set, entry: entry, element: elementValue))
        case .dictionary?:
            let pairs = try memoized(uid, as: PropertyListDictionary.self, entry: entry) {
                (entry) throws(KeyedArchiveError) in
                let fields = try foundationFields(entry, kind: .dictionary, uid: uid)
                let keys = try referenceList(fields, key: "NS.keys", uid: uid)
                let values = try referenceList(fields, key: "NS.objects", uid: uid)
                guard keys.count == values.count else {
                    throw KeyedArchiveError(
                        .invalidObject, "NSDictionary with \(keys.count) keys but \(values.count) objects", uid: uid)
                }
                var result = PropertyListDictionary(minimumCapacity: keys.count)
                for position in keys.indices {
                    guard keys[position] != 0, case .string(let key) = try decodePropertyListValue(uid: keys[position])
                    else {
                        throw KeyedArchiveError(
                            .typeMismatch, "a property-list dictionary key is not a string", uid: uid)
                    }
                    do throws(KeyedArchiveError) {
                        result[key] = try decodePropertyListValue(uid: values[position])
                    } catch {
                        throw error.prefixed(by: key)
                    }
                }
                return result
            }
            return .dictionary(pairs)
        case nil:
            throw KeyedArchiveError(
                .typeMismatch, "\(archivedClass.name) is not a property-list class", uid: uid,
                className: archivedClass.name)
        }
    }
}
