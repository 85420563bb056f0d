// Decoding without a requested type: `decodeObject(forKey:)` and generic objects.

extension KeyedDecoder {
    /// A stored field value as `decodeObject(forKey:)` returns it: a UID is the object it
    /// names, scalars are bridged as the property-list layer bridges them
    /// (``PropertyListValue/bridgedObject``).
    func anyValue(fromField value: PropertyListValue) throws(KeyedArchiveError) -> Any? {
        switch value {
        case .uid(let reference): return try decodeAny(uid: checkedUID(reference))
        case .string, .integer, .unsignedInteger, .real, .float, .bool, .date, .data:
            return value.bridgedObject
        case .array(let elements):
            var result: [Any] = []
            result.reserveCapacity(elements.count)
            for (position, element) in elements.enumerated() {
                do throws(KeyedArchiveError) {
                    guard let decoded = try anyValue(fromField: element) else {
                        throw KeyedArchiveError(.invalidObject, "an inline array element is nil")
                    }
                    result.append(decoded)
                } catch {
                    throw error.prefixed(by: "[\(position)]")
                }
            }
            return result
        case .dictionary(let dictionary):
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                do {
                    result[key] = try anyValue(fromField: element)
                } catch {
                    throw error.prefixed(by: key)
                }
            }
            return result
        }
    }

    /// The object at `uid` as whatever it is: a Foundation value, an instance of a
    /// resolved type, or (when allowed) a generic object whose fields are filled later
    /// by ``finishGenericObjects()``, so chains of generic objects never recurse.
    func decodeAny(uid: Int) throws(KeyedArchiveError) -> Any? {
        uid == 0 ? nil : try decodeAnyObject(uid: uid)
    }

    /// ``decodeAny(uid:)`` for a UID other than `$null`.
    private func decodeAnyObject(uid: Int) throws(KeyedArchiveError) -> Any {
        switch slots[uid] {
        case .string(let string):
            if requiresSecureCoding { try checkInlineValue(className: "NSString", uid: uid) }
            return string
        case .data(let data):
            if requiresSecureCoding { try checkInlineValue(className: "NSData", uid: uid) }
            return data
        case .value(let value):
            // Decoded before, perhaps under another set: Foundation checks it again.
            if requiresSecureCoding { try recheckDecodedObject(uid: uid, value: value) }
            return value
        case .classDescription(let archivedClass):
            throw KeyedArchiveError(
                .invalidObject, "UID \(uid) is the class description of \(archivedClass.name), not an object", uid: uid)
        case .decoding:
            throw KeyedArchiveError(
                .cycle, "UID \(uid) contains itself through values that cannot hold a back reference", uid: uid)
        case .empty: break
        }
        let entry = try readEntry(uid)
        guard case .instance(let fields) = entry else {
            guard case .scalar(let value) = entry else { preconditionFailure("two cases") }
            if requiresSecureCoding, let className = value.inlineClassName {
                try checkInlineValue(className: className, uid: uid)
            }
            switch value {
            case .string(let string):
                slots[uid] = .string(string)
                return string
            case .data(let data):
                slots[uid] = .data(data)
                return data
            case .uid: throw KeyedArchiveError(.invalidObject, "an $objects entry is itself a UID", uid: uid)
            default:
                // Memoised, so plain arrays of references can neither loop nor fan out.
                return try memoized(uid, as: Any.self, entry: entry) { _ throws(KeyedArchiveError) in
                    guard let decoded = try anyValue(fromField: value) else {
                        throw KeyedArchiveError(.invalidObject, "an $objects entry is nil", uid: uid)
                    }
                    return decoded
                }
            }
        }
        let archivedClass = try archivedClass(of: fields, uid: uid)
        // Foundation's order: this decoder's class map, the process's, then the name;
        // secure decoding checks the class found, whatever the archive calls it.
        let mapped = registry.explicitClass(forClassName: archivedClass.name)
        if simulatesSecureDecoding {
            // Without the model types: every class is checked by name and read as data.
            try checkClassByName(archivedClass, uid: uid)
            guard let kind = archivedClass.foundationKind else {
                return genericShell(fields: fields, archivedClass: archivedClass, uid: uid)
            }
            return try decodeFoundationAny(kind, uid: uid, entry: entry, fields: fields)
        }
        if mapped == nil, let kind = archivedClass.foundationKind {
            if requiresSecureCoding { try checkClassByName(archivedClass, uid: uid) }
            return try decodeFoundationAny(kind, uid: uid, entry: entry, fields: fields)
        }
        if let type = mapped ?? resolveType(archivedClass) {
            var permitted = true
            if requiresSecureCoding {
                do {
                    try checkCodingObject(type, archivedClass: archivedClass, uid: uid)
                } catch  where allowsGenericObjects {
                    // Secure decoding refuses to run the class's code; its data is still readable.
                    permitted = false
                }
            }
            if permitted { return try construct(type, fields: fields, archivedClass: archivedClass, uid: uid) }
        }
        guard allowsGenericObjects else { throw unknownClassError(archivedClass, uid: uid) }
        return genericShell(fields: fields, archivedClass: archivedClass, uid: uid)
    }

    private func decodeFoundationAny(
        _ kind: FoundationClass, uid: Int, entry: ArchiveObjectEntry, fields: InstanceFields
    ) throws(KeyedArchiveError) -> Any {
        // decodeArray and decodeDictionary refuse nil elements before calling this.
        let element = { (uid: Int) throws(KeyedArchiveError) -> Any in
            try self.withCheckedKey("NS.objects") { () throws(KeyedArchiveError) in try self.decodeAnyObject(uid: uid) }
        }
        let key = { (uid: Int) throws(KeyedArchiveError) -> AnyHashable in
            try self.withCheckedKey("NS.keys") { () throws(KeyedArchiveError) in
                self.hashable(try self.decodeAnyObject(uid: uid), uid: uid)
            }
        }
        switch kind {
        case .string: return try decodeString(uid: uid, entry: entry)
        case .data: return try decodeData(uid: uid, entry: entry)
        case .date: return try date(from: fields, uid: uid)
        case .uuid: return try decodeUUID(uid: uid, entry: entry)
        case .url: return try decodeURL(uid: uid, entry: entry)
        case .array: return try decodeArray(uid: uid, entry: entry, element: element)
        case .set:
            return try decodeSet(uid: uid, entry: entry) { (uid) throws(KeyedArchiveError) in
                self.hashable(try element(uid), uid: uid)
            }
        case .dictionary:
            return try decodeDictionary(uid: uid, entry: entry, key: key, value: element)
        }
    }

    /// A set element or dictionary key; unhashable values are wrapped by UID.
    private func hashable(_ value: Any, uid: Int) -> AnyHashable {
        (value as? AnyHashable) ?? AnyHashable(ArchivedElement(uid: uid, value: value))
    }

    // MARK: Generic objects

    private func genericShell(fields: InstanceFields, archivedClass: ArchivedClass, uid: Int) -> ArchivedObject {
        let object = ArchivedObject(
            className: archivedClass.name, classChain: archivedClass.chain, serial: genericObjectCount)
        genericObjectCount += 1
        slots[uid] = .value(object)
        pendingGenericObjects.append((object, fields, uid))
        return object
    }

    /// Fills in the fields of every generic object created so far, iteratively: a field
    /// that references another generic object only creates its shell.
    func finishGenericObjects() throws(KeyedArchiveError) {
        guard !pendingGenericObjects.isEmpty else { return }
        while let (object, fields, uid) = pendingGenericObjects.popLast() {
            var values: [(key: String, value: Any?)] = []
            values.reserveCapacity(fields.count)
            for position in 0..<fields.count {
                let key = try objects.key(at: position, in: fields)
                guard key != "$class" else { continue }
                do {
                    let value = try objects.value(at: position, in: fields)
                    let decoded = try withCheckedKey(key) { () throws(KeyedArchiveError) in
                        try anyValue(fromField: value)
                    }
                    values.append((key, decoded.map(object.stored)))
                } catch {
                    throw error.prefixed(by: key).located(uid: uid, className: object.className)
                }
            }
            object.storage = values
            resolveBackReferences(to: uid, with: object)
        }
    }

    /// Any object dictionary as a generic object, whatever its class.
    func decodeGenericObject(uid: Int) throws(KeyedArchiveError) -> ArchivedObject {
        if let known = try memoizedValue(uid, as: ArchivedObject.self) { return known }
        guard uid != 0, case .instance(let fields) = try readEntry(uid) else {
            throw KeyedArchiveError(.typeMismatch, "expected an object, found a plain value or nil", uid: uid)
        }
        return genericShell(fields: fields, archivedClass: try archivedClass(of: fields, uid: uid), uid: uid)
    }
}
