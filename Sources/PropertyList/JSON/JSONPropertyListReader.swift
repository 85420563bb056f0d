/// Reads JSON (RFC 8259) into a property-list value, as `plutil` reads JSON.
///
/// Strict, like `JSONSerialization`: no comments, trailing commas, `NaN`, leading zeros
/// or raw control characters in strings. Numbers without a fraction or exponent that
/// fit `Int64` or `UInt64` become integers; every other number becomes a `Double`,
/// correctly rounded, and one too large for a `Double` is refused. `true` and `false`
/// become booleans. `null` has no property-list counterpart and is refused with
/// `.invalidObject`, as `plutil` refuses it. A later duplicate key replaces the
/// earlier value in the earlier position. `{"CF$UID": 1}` stays a dictionary: JSON
/// has no UIDs. A leading UTF-8 byte-order mark is skipped.
///
/// ```swift
/// let value = try PropertyListReader().read(Array(#"{"count": 3}"#.utf8), as: .json)
/// ```
enum JSONPropertyListReader {
    /// - Throws: ``PropertyListError`` with the line and column of the problem:
    ///   `.syntaxError`, `.truncated` (input ends inside a value), `.invalidString`
    ///   (bad UTF-8, lone surrogate), `.invalidObject` (`null`, number out of range),
    ///   `.limitExceeded`.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, limits: PropertyListLimits) throws(PropertyListError)
        -> PropertyListValue
    {
        var parser = JSONParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }
}
