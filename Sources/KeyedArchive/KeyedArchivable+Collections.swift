import Foundation

// Swift collections, stored as the Foundation classes they bridge to.

extension Array: KeyedArchivable where Element: KeyedArchivable {
    public static var _allowedClasses: [Any.Type] { [NSArray.self] + Element._allowedClasses }

    /// An `NSArray`: `{NS.objects: [UID]}`.
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        let uid = encoder.encodeCollection(self, kind: .array) { Int($0._encodeObject(to: encoder).value) }
        return PropertyListUID(UInt64(uid))
    }

    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> [Element]
    {
        try decoder.decodeArray(uid: decoder.checkedUID(uid)) { (uid) throws(KeyedArchiveError) in
            try Element._decodeObject(at: PropertyListUID(UInt64(uid)), from: decoder)
        }
    }
}

extension Set: KeyedArchivable where Element: KeyedArchivable {
    public static var _allowedClasses: [Any.Type] { [NSSet.self] + Element._allowedClasses }

    /// An `NSSet`: `{NS.objects: [UID]}`.
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        let uid = encoder.encodeCollection(self, kind: .set) { Int($0._encodeObject(to: encoder).value) }
        return PropertyListUID(UInt64(uid))
    }

    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> Set<Element>
    {
        try decoder.decodeSet(uid: decoder.checkedUID(uid)) { (uid) throws(KeyedArchiveError) in
            try Element._decodeObject(at: PropertyListUID(UInt64(uid)), from: decoder)
        }
    }
}

extension Dictionary: KeyedArchivable where Key: KeyedArchivable, Value: KeyedArchivable {
    public static var _allowedClasses: [Any.Type] {
        [NSDictionary.self] + Key._allowedClasses + Value._allowedClasses
    }

    /// An `NSDictionary`: `{NS.keys: [UID], NS.objects: [UID]}`.
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        let uid = encoder.encodeDictionary(
            self,
            encodeKey: { Int($0._encodeObject(to: encoder).value) },
            encodeValue: { Int($0._encodeObject(to: encoder).value) })
        return PropertyListUID(UInt64(uid))
    }

    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> [Key: Value]
    {
        try decoder.decodeDictionary(
            uid: decoder.checkedUID(uid),
            key: { (uid) throws(KeyedArchiveError) in
                try Key._decodeObject(at: PropertyListUID(UInt64(uid)), from: decoder)
            },
            value: { (uid) throws(KeyedArchiveError) in
                try Value._decodeObject(at: PropertyListUID(UInt64(uid)), from: decoder)
            })
    }
}
