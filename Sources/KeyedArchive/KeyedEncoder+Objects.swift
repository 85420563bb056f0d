import Foundation

extension KeyedEncoder {
    /// Encodes a ``KeyedCoding`` value as an instance dictionary and returns its UID.
    ///
    /// Class instances are looked up by identity first. The UID is reserved before the
    /// fields are encoded (so the object can be referenced from inside itself) and the
    /// class entry is added after them, which is the order Foundation numbers objects in.
    func encodeInstance<Object: KeyedCoding>(_ object: Object) -> Int {
        let dynamicType = Swift.type(of: object)
        let typeKey = ObjectIdentifier(dynamicType)
        // Archives are mostly runs of one type: the last type's entry saves a lookup.
        var info =
            lastTypeInfo?.key == typeKey
            ? lastTypeInfo!.info
            : typeInfo[typeKey] ?? EncodedTypeInfo(isReference: dynamicType is AnyObject.Type)
        var identity: ObjectIdentifier?
        if info.isReference {
            // A class instance is one reference, so no bridging is needed to see it as one.
            let reference = unsafeBitCast(object, to: AnyObject.self)
            let id = ObjectIdentifier(reference)
            // One lookup: claim the UID the object will get, and undo if it had one.
            if let uid = identities.updateValue(entries.count, forKey: id) {
                identities[id] = uid
                return uid
            }
            retained.append(reference)
            identity = id
        }
        guard let uid = beginObject() else {
            if let identity { identities[identity] = nil }
            return 0
        }

        let range = encodeFields { object.encode(with: self) }
        let classUID = info.classUID ?? classEntry(for: dynamicType)
        if info.classUID == nil {
            info.classUID = classUID
            typeInfo[typeKey] = info
        }
        lastTypeInfo = (typeKey, info)
        endObject(uid, classUID: classUID, fields: range)
        return uid
    }

    /// Runs `body` with a fresh field frame and moves the fields it encoded to the
    /// finished store, returning their range.
    func encodeFields(_ body: () -> Void) -> Range<Int> {
        let savedStart = frameStart
        frameStart = fieldStack.count
        body()
        let start = fields.count
        fields.append(contentsOf: fieldStack[frameStart...])
        fieldStack.removeLast(fieldStack.count - frameStart)
        frameStart = savedStart
        return start..<fields.count
    }

    /// Reserves the next UID for an object whose contents follow, or records
    /// `.limitExceeded` and returns `nil` when the graph is nested too deeply.
    func beginObject() -> Int? {
        guard depth < maxDepth else {
            failWithError(KeyedArchiveError(.limitExceeded, "objects nested deeper than \(maxDepth)"))
            return nil
        }
        depth += 1
        entries.append(.pending)
        return entries.count - 1
    }

    func endObject(_ uid: Int, classUID: Int, fields range: Range<Int>) {
        depth -= 1
        entries[uid] = .instance(classUID: classUID, fields: range)
    }

    /// The class entry of a ``KeyedCoding`` type, its chain built from its superclasses.
    private func classEntry(for type: any KeyedCoding.Type) -> Int {
        var chain = [archivedName(of: type)]
        var versions = [type.archiveClassVersion]
        if let classType = type as? AnyClass {
            var superclass: AnyClass? = _getSuperclass(classType)
            // Foundation's root class is written by its Objective-C name, below.
            while let current = superclass, ObjectIdentifier(current) != ObjectIdentifier(NSObject.self) {
                chain.append(archivedName(of: current))
                versions.append((current as? any KeyedCoding.Type)?.archiveClassVersion ?? 0)
                superclass = _getSuperclass(current)
            }
        }
        if chain.last != "NSObject" {
            chain.append("NSObject")
            versions.append(0)
        }
        return classUID(chain: chain, versions: versions.allSatisfy { $0 == 0 } ? [] : versions)
    }

    /// The name `type` is written under: this encoder's mapping, else the process's
    /// (``KeyedArchiver/setClassName(_:for:)-(String?,_)``), else its own
    /// ``KeyedCoding/archiveClassName``. The process remembers the last two, so that its
    /// own archives can be read back by name; a mapping of this encoder alone stays its
    /// own, as Apple's instance mappings do.
    private func archivedName(of type: Any.Type) -> String {
        guard let coding = type as? any KeyedCoding.Type else { return String(reflecting: type) }
        if let name = classNameOverrides[ObjectIdentifier(type)] { return name }
        let name = ProcessClassNames.className(for: coding) ?? coding.archiveClassName
        ProcessClassNames.noteArchived(coding, as: name)
        return name
    }

    /// The UID of the class entry named `chain[0]`, added on first use; one entry per
    /// name is shared by all its instances.
    func classUID(chain: [String], versions: [Int] = []) -> Int {
        uniqueEntry(chain[0], in: &classUIDs, .classDescription(chain: chain, versions: versions))
    }

    /// The UID of the entry `key` has in `table`, or of `entry`, added for it when it
    /// has none.
    private func uniqueEntry<Key: Hashable>(
        _ key: Key, in table: inout [Key: Int], _ entry: @autoclosure () -> ArchiveEntry
    ) -> Int {
        let uid = table.number(of: key, givingIfMissing: entries.count)
        if uid == entries.count { entries.append(entry()) }
        return uid
    }

    // MARK: Foundation's value classes

    /// Short strings are merged by value; longer ones only when they are the same
    /// string (share storage), which spares hashing every long string: Darwin's archiver
    /// likewise merges only the same `NSString`.
    func encodeString(_ string: String) -> Int {
        if string.utf8.count <= Self.shortStringLength {
            return uniqueEntry(ExactString(string), in: &stringUIDs, .string(string))
        }
        var stored = string
        // The entry keeps the storage alive, so its address cannot be reused for
        // another string while encoding.
        let storage = stored.withUTF8 { UInt(bitPattern: $0.baseAddress) }
        return uniqueEntry(storage, in: &longStringUIDs, .string(stored))
    }

    /// The longest UTF-8 length Swift stores inline, without storage of its own.
    private static let shortStringLength = 15

    func encodeData(_ data: Data) -> Int {
        uniqueEntry(data, in: &dataUIDs, .data(data))
    }

    /// A number as its own entry, for numbers inside collections (`NSNumber`).
    func encodeNumber(_ value: ArchiveFieldValue) -> Int {
        switch value {
        case .integer(let integer): return uniqueEntry(integer, in: &integerUIDs, .integer(integer))
        case .unsignedInteger(let integer): return uniqueEntry(integer, in: &unsignedUIDs, .unsignedInteger(integer))
        case .real(let real): return uniqueEntry(real.bitPattern, in: &realUIDs, .real(real))
        case .float(let float): return uniqueEntry(float.bitPattern, in: &floatUIDs, .float(float))
        case .bool(let bool): return uniqueEntry(bool, in: &boolUIDs, .bool(bool))
        case .uid, .data, .uids, .conditional: preconditionFailure("not a number")
        }
    }

    /// `NSDate`: `{NS.time: seconds since 2001}`.
    func encodeDate(_ date: Date) -> Int {
        guard let uid = beginObject() else { return 0 }
        fields.append(ArchiveField(key: "NS.time", value: .real(date.timeIntervalSinceReferenceDate)))
        endObject(uid, classUID: foundationClassUID(.date), fields: fields.count - 1..<fields.count)
        return uid
    }

    /// The class entry of one of Foundation's classes (`NSDate`, `NSArray`…), made once.
    func foundationClassUID(_ kind: FoundationClass) -> Int {
        if let uid = foundationClassUIDs[kind.rawValue] { return uid }
        let uid = classUID(chain: [kind.baseClassName, "NSObject"])
        foundationClassUIDs[kind.rawValue] = uid
        return uid
    }

    /// `NSUUID`: `{NS.uuidbytes: 16 bytes}`.
    func encodeUUID(_ uuid: UUID) -> Int {
        if let uid = uuidUIDs[uuid] { return uid }
        guard let uid = beginObject() else { return 0 }
        uuidUIDs[uuid] = uid
        let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
        fields.append(ArchiveField(key: "NS.uuidbytes", value: .data(bytes)))
        endObject(uid, classUID: foundationClassUID(.uuid), fields: fields.count - 1..<fields.count)
        return uid
    }

    /// `NSURL`: `{NS.base: base URL or $null, NS.relative: string}`, as Darwin writes it.
    func encodeURL(_ url: URL) -> Int {
        if let uid = urlUIDs[url] { return uid }
        guard let uid = beginObject() else { return 0 }
        urlUIDs[url] = uid
        let base = url.baseURL.map(encodeURL) ?? 0
        let relative = encodeString(url.relativeString)
        fields.append(ArchiveField(key: "NS.base", value: .uid(base)))
        fields.append(ArchiveField(key: "NS.relative", value: .uid(relative)))
        endObject(uid, classUID: foundationClassUID(.url), fields: fields.count - 2..<fields.count)
        return uid
    }

    // MARK: Collections

    /// `NSArray` / `NSSet`: `{NS.objects: [UID]}`. The references are reserved in the
    /// pool first so nested collections never interleave with them.
    func encodeCollection<Elements: Collection>(
        _ elements: Elements, kind: FoundationClass, encodeElement: (Elements.Element) -> Int
    ) -> Int {
        guard let uid = beginObject() else { return 0 }
        let count = elements.count
        let start = uidPool.count
        uidPool.append(contentsOf: repeatElement(0, count: count))
        var position = start
        for element in elements {
            // The element is encoded before the pool is written to, so nested collections
            // appending to the pool do not overlap this access.
            let elementUID = encodeElement(element)
            uidPool[position] = elementUID
            position += 1
        }
        fields.append(ArchiveField(key: "NS.objects", value: .uids(start..<start + count)))
        endObject(uid, classUID: foundationClassUID(kind), fields: fields.count - 1..<fields.count)
        return uid
    }

    /// `NSDictionary`: `{NS.keys: [UID], NS.objects: [UID]}`, all keys before all values
    /// as Foundation encodes them.
    func encodeDictionary<Pairs: Collection, Key, Value>(
        _ pairs: Pairs, encodeKey: (Key) -> Int, encodeValue: (Value) -> Int
    ) -> Int where Pairs.Element == (key: Key, value: Value) {
        guard let uid = beginObject() else { return 0 }
        let count = pairs.count
        let start = uidPool.count
        uidPool.append(contentsOf: repeatElement(0, count: 2 * count))
        for (position, pair) in pairs.enumerated() {
            let keyUID = encodeKey(pair.key)
            uidPool[start + position] = keyUID
        }
        for (position, pair) in pairs.enumerated() {
            let valueUID = encodeValue(pair.value)
            uidPool[start + count + position] = valueUID
        }
        fields.append(ArchiveField(key: "NS.keys", value: .uids(start..<start + count)))
        fields.append(ArchiveField(key: "NS.objects", value: .uids(start + count..<start + 2 * count)))
        endObject(uid, classUID: foundationClassUID(.dictionary), fields: fields.count - 2..<fields.count)
        return uid
    }
}
