// The decode calls a `KeyedCoding` type makes.

extension KeyedDecoder {
    // MARK: Swift calls (throwing)

    /// The value under `key`, which must be present and not `nil`.
    /// - Throws: ``KeyedArchiveError``: `.keyNotFound`, `.typeMismatch`, or whatever
    ///   decoding the value met, with the key path.
    public func decode<Value: KeyedArchivable>(_ type: Value.Type, forKey key: String) throws(KeyedArchiveError)
        -> Value
    {
        guard let value = try decodeIfPresent(type, forKey: key) else {
            throw KeyedArchiveError(
                .keyNotFound, "no value for key \"\(key)\"", keyPath: key, uid: frame.uid,
                className: frame.archivedClass?.name)
        }
        return value
    }

    /// The value under `key`, or `nil` when the key is absent or holds `nil`.
    /// - Throws: ``KeyedArchiveError`` when a value is there but cannot be decoded.
    public func decodeIfPresent<Value: KeyedArchivable>(_ type: Value.Type, forKey key: String)
        throws(KeyedArchiveError) -> Value?
    {
        // The request narrows the allowed classes to its type for everything read inside.
        let outerScope = allowedScope
        allowedScope = .requested(Value.self)
        defer { allowedScope = outerScope }
        do {
            guard let position = objects.position(of: key, in: frame.fields, hint: frame.cursor) else { return nil }
            frame.cursor = position + 1
            let result: Value
            if let uid = objects.uid(at: position, in: frame.fields) {
                guard uid.value != 0 else { return nil }
                result = try Value._decodeObject(at: uid, from: self)
            } else {
                result = try Value._decodeField(objects.value(at: position, in: frame.fields), from: self)
            }
            try finishGenericObjects()
            return result
        } catch {
            throw error.prefixed(by: key)
        }
    }

    /// Any object under `key`, as ``decodeObject(forKey:)`` returns it, but throwing.
    /// Corresponds to `decodeTopLevelObject(forKey:)`.
    /// - Throws: ``KeyedArchiveError``.
    public func decodeTopLevelObject(forKey key: String) throws(KeyedArchiveError) -> Any? {
        let outerKey = checkedKey
        checkedKey = key
        defer { checkedKey = outerKey }
        do {
            guard let position = objects.position(of: key, in: frame.fields, hint: frame.cursor) else { return nil }
            frame.cursor = position + 1
            let result: Any?
            if let uid = objects.uid(at: position, in: frame.fields) {
                result = try decodeAny(uid: checkedUID(uid))
            } else {
                let value = try objects.value(at: position, in: frame.fields)
                // A number or boolean encoded under the key is not an object: Foundation
                // returns nil, with a warning.
                if value.isInlineNumber {
                    try refuseNonObject(value)
                    return nil
                }
                result = try anyValue(fromField: value)
            }
            try finishGenericObjects()
            return result
        } catch {
            throw error.prefixed(by: key)
        }
    }

    /// Reads a reference that may point back to an object still being decoded (a
    /// child's parent), which a plain decode would report as a `.cycle`. `assign` runs
    /// now if the object is available, or as soon as its `init(coder:)` finishes; with
    /// `nil` when the key is absent or holds `nil`. Failures are recorded in ``error``.
    ///
    /// ```swift
    /// init(coder: KeyedDecoder) throws {
    ///     name = try coder.decode(String.self, forKey: "name")
    ///     coder.decodeBackReference(Folder.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    /// }
    /// ```
    public func decodeBackReference<Value: KeyedArchivable>(
        _ type: Value.Type, forKey key: String, assign: @escaping (Value?) -> Void
    ) {
        guard error == nil else { return }
        let stored: PropertyListValue?
        do {
            stored = try rawValue(forKey: key)
        } catch {
            return failWithError(error.prefixed(by: key))
        }
        guard let value = stored, !value.isNullReference else { return assign(nil) }
        if case .uid(let reference) = value, reference.value < UInt64(slots.count),
            case .decoding = slots[Int(reference.value)]
        {
            let path = key
            backReferences[Int(reference.value), default: []].append { [unowned self] decoded in
                if let typed = decoded as? Value {
                    assign(typed)
                } else {
                    failWithError(
                        KeyedArchiveError(
                            .typeMismatch, "expected \(Value.self), found \(Swift.type(of: decoded))", keyPath: path,
                            uid: Int(reference.value)))
                }
            }
            return
        }
        do {
            assign(try Value._decodeField(value, from: self))
            try finishGenericObjects()
        } catch {
            failWithError(error.prefixed(by: key))
        }
    }

    // MARK: Foundation's spellings (non-throwing)

    /// Any object: Foundation classes as Swift values (`String`, `Int`, `Double`, `Bool`,
    /// `Data`, `Date`, `UUID`, `URL`, `[Any]`, `[AnyHashable: Any]`, `Set<AnyHashable>`),
    /// allowed ``KeyedCoding`` types as instances, others as ``ArchivedObject`` when
    /// ``allowsGenericObjects`` is on. `nil` when absent, `nil`, or on failure (see
    /// ``error``). Corresponds to `decodeObject(forKey:)`.
    public func decodeObject(forKey key: String) -> Any? {
        recordingFailure { () throws(KeyedArchiveError) in try decodeTopLevelObject(forKey: key) }
    }

    /// The object under `key` if it is a `Value`; `nil` when absent, `nil`, or on failure
    /// (see ``error``). `Value` is allowed for this and later calls.
    /// Corresponds to `decodeObject(of:forKey:)`.
    ///
    /// A number or boolean stored inline where `Value` is not a number is not an object:
    /// as in Foundation, the result is `nil`, with a warning
    /// (``SecureCodingWarning/Kind/nonObjectDecodedAsObject``), and decoding goes on.
    public func decodeObject<Value: KeyedArchivable>(of type: Value.Type, forKey key: String) -> Value? {
        recordingFailure { () throws(KeyedArchiveError) -> Value? in
            do throws(KeyedArchiveError) {
                return try decodeIfPresent(type, forKey: key)
            } catch  where error.code == .typeMismatch {
                // Looked up again only on this path, so a decode that succeeds pays nothing.
                guard let stored = try field(key, in: frame.fields), stored.isInlineNumber else { throw error }
                try withCheckedKey(key) { () throws(KeyedArchiveError) in try refuseNonObject(stored) }
                return nil
            }
        }
    }

    /// Any object whose class is among `types` (or a subclass of one), for this call and
    /// what it reads inside. Entries are Keepsake types and Foundation's classes, as in
    /// Apple's lists: `[NSArray.self, Item.self]`; `nil` keeps the set in force, as
    /// ``decodeObject(forKey:)`` does. Corresponds to `decodeObject(of:forKey:)` with a set
    /// of classes.
    public func decodeObject(of types: [Any.Type]?, forKey key: String) -> Any? {
        guard let types else { return decodeObject(forKey: key) }
        guard error == nil else { return nil }
        for case let coding as any KeyedCoding.Type in types where !registry.isAllowed(coding) {
            registry.allow(coding)
            registryGeneration += 1
        }
        let outerScope = allowedScope
        allowedScope = .listed(AllowedClasses(types))
        defer { allowedScope = outerScope }
        return decodeObject(forKey: key)
    }

    /// An array of `Element`s. Corresponds to `decodeArrayOfObjects(ofClass:forKey:)`,
    /// which, like it, requires secure coding: with ``requiresSecureCoding`` off it fails
    /// with `.secureCodingRequired`.
    public func decodeArrayOfObjects<Element: KeyedArchivable>(ofClass type: Element.Type, forKey key: String)
        -> [Element]?
    {
        guard requireSecureCoding(for: "decodeArrayOfObjects(ofClass:forKey:)", key: key),
            refuseNestedCollections(Element._allowedClasses, key: key)
        else { return nil }
        return decodingOneCollection { decodeObject(of: [Element].self, forKey: key) }
    }

    /// A dictionary of `Key`s to `Value`s. Corresponds to
    /// `decodeDictionary(withKeysOfClass:objectsOfClass:forKey:)`, which, like it, requires
    /// secure coding.
    public func decodeDictionary<Key: KeyedArchivable & Hashable, Value: KeyedArchivable>(
        withKeysOfClass keyType: Key.Type, objectsOfClass valueType: Value.Type, forKey key: String
    ) -> [Key: Value]? {
        guard requireSecureCoding(for: "decodeDictionary(withKeysOfClass:objectsOfClass:forKey:)", key: key),
            refuseNestedCollections(Key._allowedClasses + Value._allowedClasses, key: key)
        else { return nil }
        return decodingOneCollection { decodeObject(of: [Key: Value].self, forKey: key) }
    }

    /// The collection calls decode one level of collection: Foundation refuses element
    /// classes that are collections themselves.
    private func refuseNestedCollections(_ elementClasses: [Any.Type], key: String) -> Bool {
        let nested = AllowedClasses(elementClasses).names.intersection(FoundationClass.collectionNames)
        guard nested.isEmpty else {
            failWithError(
                KeyedArchiveError(
                    .classNotAllowed,
                    "This method only supports decoding non-nested collections. Please remove the following or use "
                        + "decodeObject(of:forKey:) instead: \(nested.sorted().joined(separator: ", "))",
                    keyPath: key))
            return false
        }
        return true
    }

    private func requireSecureCoding(for call: String, key: String) -> Bool {
        guard error == nil else { return false }
        guard requiresSecureCoding else {
            failWithError(
                KeyedArchiveError(
                    .secureCodingRequired, "\(call): This method only supports secure coding.", keyPath: key))
            return false
        }
        return true
    }

    /// `0` when absent. Corresponds to `decodeInteger(forKey:)`.
    public func decodeInteger(forKey key: String) -> Int {
        // The common case, an inline integer that fits, without the general path.
        if error == nil, let position = objects.position(of: key, in: frame.fields, hint: frame.cursor),
            case .integer(let integer)? = objects.inlineScalar(at: position, in: frame.fields),
            let value = Int(exactly: integer)
        {
            frame.cursor = position + 1
            return value
        }
        return decodeNumber(Int.self, forKey: key) ?? 0
    }
    /// Corresponds to `decodeInt32(forKey:)`.
    public func decodeInt32(forKey key: String) -> Int32 { decodeNumber(Int32.self, forKey: key) ?? 0 }
    /// Corresponds to `decodeInt64(forKey:)`.
    public func decodeInt64(forKey key: String) -> Int64 { decodeNumber(Int64.self, forKey: key) ?? 0 }
    /// `false` when absent. Corresponds to `decodeBool(forKey:)`.
    public func decodeBool(forKey key: String) -> Bool { decodeNumber(Bool.self, forKey: key) ?? false }
    /// Corresponds to `decodeDouble(forKey:)`.
    public func decodeDouble(forKey key: String) -> Double { decodeNumber(Double.self, forKey: key) ?? 0 }
    /// Corresponds to `decodeFloat(forKey:)`.
    public func decodeFloat(forKey key: String) -> Float { decodeNumber(Float.self, forKey: key) ?? 0 }

    private func decodeNumber<Number: KeyedArchivable>(_ type: Number.Type, forKey key: String) -> Number? {
        guard error == nil else { return nil }
        do {
            guard let value = try rawValue(forKey: key), !value.isNullReference else { return nil }
            return try Number._decodeField(value, from: self)
        } catch {
            failWithError(error.prefixed(by: key))
            return nil
        }
    }

    // MARK: Codable

    /// A `Decodable` value stored by ``KeyedEncoder/encodeEncodable(_:forKey:)`` (or by
    /// Foundation's `encodeEncodable`); `nil` when absent.
    /// Corresponds to `decodeTopLevelDecodable(_:forKey:)`.
    /// - Throws: ``KeyedArchiveError``; a `DecodingError` is its `underlyingError`.
    public func decodeTopLevelDecodable<Value: Decodable>(_ type: Value.Type, forKey key: String)
        throws(KeyedArchiveError) -> Value?
    {
        guard let tree = try decodeIfPresent(PropertyListValue.self, forKey: key) else { return nil }
        do {
            return try PropertyListValueDecoder.decode(type, from: tree, limits: limits)
        } catch {
            throw error.prefixed(by: key)
        }
    }

    /// ``decodeTopLevelDecodable(_:forKey:)`` with failures recorded in ``error``.
    /// Corresponds to `decodeDecodable(_:forKey:)`.
    public func decodeDecodable<Value: Decodable>(_ type: Value.Type, forKey key: String) -> Value? {
        recordingFailure { () throws(KeyedArchiveError) in try decodeTopLevelDecodable(type, forKey: key) }
    }
}

extension KeyedDecoder {
    /// Foundation's non-throwing decode calls: `nil` once ``error`` is set, and a
    /// failure of `decode` recorded there (the first one is kept) instead of thrown.
    @inline(__always)
    fileprivate func recordingFailure<Value>(_ decode: () throws(KeyedArchiveError) -> Value?) -> Value? {
        guard error == nil else { return nil }
        do {
            return try decode()
        } catch {
            failWithError(error)
            return nil
        }
    }
}
