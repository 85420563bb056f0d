import Foundation

extension PropertyListValue: KeyedArchivable {
    public static var _allowedClasses: [Any.Type] {
        [NSString.self, NSNumber.self, NSData.self, NSDate.self, NSArray.self, NSDictionary.self]
    }

    /// The Foundation object `NSKeyedArchiver` writes for the value a property-list
    /// reader returns: strings and data inline, numbers and booleans as `NSNumber`,
    /// `NSDate`, `NSArray`, `NSDictionary`. A ``PropertyListValue/uid(_:)`` cannot be
    /// archived and is recorded as an `.unsupportedValue` error.
    public func _encodeObject(to encoder: KeyedEncoder) -> PropertyListUID {
        let uid: Int
        switch self {
        case .string(let string): uid = encoder.encodeString(string)
        case .data(let data): uid = encoder.encodeData(data)
        case .date(let date): uid = encoder.encodeDate(date)
        case .integer(let integer): uid = encoder.encodeNumber(.integer(integer))
        case .unsignedInteger(let integer): uid = encoder.encodeNumber(.unsignedInteger(integer))
        case .real(let real): uid = encoder.encodeNumber(.real(real))
        case .float(let float): uid = encoder.encodeNumber(.float(float))
        case .bool(let bool): uid = encoder.encodeNumber(.bool(bool))
        case .array(let elements):
            uid = encoder.encodeCollection(elements, kind: .array) { Int($0._encodeObject(to: encoder).value) }
        case .dictionary(let dictionary):
            uid = encoder.encodeDictionary(
                dictionary.lazy.map { (key: $0.key, value: $0.value) },
                encodeKey: encoder.encodeString,
                encodeValue: { Int($0._encodeObject(to: encoder).value) })
        case .uid(let reference):
            encoder.failWithError(
                KeyedArchiveError(.unsupportedValue, "a \(reference) cannot be archived as an object"))
            uid = 0
        }
        return PropertyListUID(UInt64(uid))
    }

    /// Numbers and booleans inline, everything else by reference.
    public func _encodeField(to encoder: KeyedEncoder, forKey key: String) {
        switch self {
        case .integer(let integer): encoder.appendField(key, .integer(integer))
        case .unsignedInteger(let integer): encoder.appendField(key, .unsignedInteger(integer))
        case .real(let real): encoder.appendField(key, .real(real))
        case .float(let float): encoder.appendField(key, .float(float))
        case .bool(let bool): encoder.appendField(key, .bool(bool))
        default: encoder.appendField(key, .uid(Int(_encodeObject(to: encoder).value)))
        }
    }

    /// Foundation's property-list classes back to values: `NSSet` becomes an array,
    /// `NSUUID` and `NSURL` strings, a `nil` element the string `"$null"` (the
    /// `PropertyListEncoder` convention). Other classes are a `.typeMismatch`.
    public static func _decodeObject(at uid: PropertyListUID, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> PropertyListValue
    {
        try decoder.decodePropertyListValue(uid: decoder.checkedUID(uid))
    }

    public static func _decodeField(_ value: PropertyListValue, from decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> PropertyListValue
    {
        switch value {
        case .uid(let uid):
            return try _decodeObject(at: uid, from: decoder)
        case .array(let elements):
            var result: [PropertyListValue] = []
            result.reserveCapacity(elements.count)
            for element in elements { result.append(try _decodeField(element, from: decoder)) }
            return .array(result)
        case .dictionary(let dictionary):
            var result = PropertyListDictionary(minimumCapacity: dictionary.count)
            for (key, element) in dictionary { result[key] = try _decodeField(element, from: decoder) }
            return .dictionary(result)
        default:
            return value
        }
    }
}
