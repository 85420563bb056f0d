extension KeyedEncoder {
    /// `encode(_: Any?, forKey:)`: numbers inline, everything else by reference.
    /// (Values boxed in `AnyHashable` need no case of their own: dynamic casts see
    /// through the box.)
    func encodeAnyField(_ object: Any?, forKey key: String) {
        guard let object = Self.unwrapped(object) else { return appendField(key, .uid(0)) }
        if let archivable = object as? any KeyedArchivable {
            archivable._encodeField(to: self, forKey: key)
        } else {
            appendField(key, .uid(encodeAnyObject(object)))
        }
    }

    /// One object of any run-time type; `nil` is `$null`.
    func encodeAnyObject(_ object: Any?) -> Int {
        guard let object = Self.unwrapped(object) else { return 0 }
        if let archivable = object as? any KeyedArchivable {
            return Int(archivable._encodeObject(to: self).value)
        }
        switch object {
        case let array as [Any]:
            return encodeCollection(array, kind: .array, encodeElement: encodeAnyObject)
        case let dictionary as [AnyHashable: Any]:
            return encodeDictionary(
                dictionary, encodeKey: { self.encodeAnyObject($0.base) }, encodeValue: encodeAnyObject)
        case let set as Set<AnyHashable>:
            return encodeCollection(set, kind: .set) { self.encodeAnyObject($0.base) }
        case let element as ArchivedElement:
            return encodeAnyObject(element.value)
        default:
            failWithError(KeyedArchiveError(.unsupportedValue, "a \(Swift.type(of: object)) is not KeyedArchivable"))
            return 0
        }
    }

    private static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? any AnyOptional { return unwrapped(optional.wrappedAny) }
        return value
    }
}

extension KeyedEncoder {
    /// An ``ArchivedObject``, by identity like any class instance, with its own chain.
    func encodeGenericObject(_ object: ArchivedObject) -> Int {
        let identity = ObjectIdentifier(object)
        if let uid = identities[identity] { return uid }
        guard let uid = beginObject() else { return 0 }
        identities[identity] = uid
        retained.append(object)
        let range = encodeFields {
            for (key, value) in object.fields { encodeAnyField(value, forKey: key) }
        }
        let chain =
            object.classChain.first == object.className ? object.classChain : [object.className] + object.classChain
        endObject(uid, classUID: classUID(chain: chain), fields: range)
        return uid
    }
}
