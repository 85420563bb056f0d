public import Foundation

// Foundation's value types, stored as the classes they bridge to.

extension String: KeyedArchivable {
    public static var _allowedClasses: [Any.Type] { [NSString.self] }

    /// An `NSString`: the string itself in `$objects`.
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        PropertyListUID(UInt64(encoder.encodeString(self)))
    }

    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> String
    {
        try decoder.decodeString(uid: decoder.checkedUID(uid))
    }
}

extension Data: KeyedArchivable {
    public static var _allowedClasses: [Any.Type] { [NSData.self] }

    /// An `NSData`: the bytes themselves in `$objects`.
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        PropertyListUID(UInt64(encoder.encodeData(self)))
    }

    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> Data
    {
        try decoder.decodeData(uid: decoder.checkedUID(uid))
    }
}

extension Date: KeyedArchivable {
    public static var _allowedClasses: [Any.Type] { [NSDate.self] }

    /// An `NSDate`: `{NS.time: seconds since 2001}`.
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        PropertyListUID(UInt64(encoder.encodeDate(self)))
    }

    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> Date
    {
        try decoder.decodeDate(uid: decoder.checkedUID(uid))
    }
}

extension UUID: KeyedArchivable {
    public static var _allowedClasses: [Any.Type] { [NSUUID.self] }

    /// An `NSUUID`: `{NS.uuidbytes: 16 bytes}`.
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        PropertyListUID(UInt64(encoder.encodeUUID(self)))
    }

    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> UUID
    {
        try decoder.decodeUUID(uid: decoder.checkedUID(uid))
    }
}

extension URL: KeyedArchivable {
    public static var _allowedClasses: [Any.Type] { [NSURL.self] }

    /// An `NSURL`: `{NS.base: base URL or $null, NS.relative: relative string}`.
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        PropertyListUID(UInt64(encoder.encodeURL(self)))
    }

    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> URL
    {
        try decoder.decodeURL(uid: decoder.checkedUID(uid))
    }
}
