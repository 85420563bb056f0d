#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One value of a property list: the tree that every plist format encodes.
///
/// Corresponds to the object graph `PropertyListSerialization` produces (`NSString`,
/// `NSNumber`, `NSDate`, `NSData`, `NSArray`, `NSDictionary`), plus the `CF$UID`
/// references keyed archives are made of.
///
/// Integers cover the full signed 64-bit range and unsigned values up to `UInt64.max`:
/// readers produce ``integer(_:)`` for every value that fits `Int64` and
/// ``unsignedInteger(_:)`` only above `Int64.max`. Equality is numeric, so
/// `.unsignedInteger(5) == .integer(5)`. Reals remember whether the source stored them
/// in 32 or 64 bits; equality compares them as numbers, and `NaN` equals `NaN` so that
/// round trips compare equal. Dictionaries keep their keys in order (for deterministic
/// output) but compare without regard to order, as every plist reader does.
///
/// Nesting depth: the writers and ``description`` stop at ``PropertyListLimits/maxDepth``
/// levels, but `==`, `hash(into:)` and Swift's own destruction of the value recurse once
/// per level with no bound. That is safe for every value the readers produce under the
/// default limits (256 levels). A value built in code, or read with `maxDepth` raised
/// into the thousands, can exhaust the stack: in a debug build on an 8 MB stack,
/// comparing or hashing two 10,000-deep values overflows, and merely dropping a
/// 50,000-deep one does, in the runtime's recursive release, which this package cannot
/// change. Keep such values shallow, or raise the limits no further than you need.
///
/// ```swift
/// let item: PropertyListValue = ["name": "Rusty Spork", "valueInDollars": 42]
/// let bytes = try PropertyListWriter.binary.write(item)
/// let back = try PropertyListReader().read(bytes)
/// assert(back == item)
/// ```
public enum PropertyListValue: Sendable {
    case string(String)
    /// A signed integer; see the type's discussion for the unsigned range.
    case integer(Int64)
    /// An unsigned integer above `Int64.max`, stored by binary plists in 128 bits.
    case unsignedInteger(UInt64)
    /// A 64-bit real.
    case real(Double)
    /// A 32-bit real, kept as such so that writing it back gives the same bytes.
    case float(Float)
    case bool(Bool)
    /// A moment in time; binary plists keep it as seconds since 2001 in a `Double`,
    /// so sub-second precision survives.
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary(PropertyListDictionary)
    /// A reference into a keyed archive's `$objects` array (`CF$UID`).
    case uid(PropertyListUID)
}

extension PropertyListValue {
    /// An integer of any width, stored as ``integer(_:)`` when it fits `Int64` and as
    /// ``unsignedInteger(_:)`` otherwise.
    ///
    /// - Precondition: `value` lies within `Int64.min ... UInt64.max`; a wider value is
    ///   a programmer error and traps.
    public init(integer value: some BinaryInteger) {
        if let signed = Int64(exactly: value) {
            self = .integer(signed)
        } else {
            self = .unsignedInteger(UInt64(value))
        }
    }

    /// The kinds of value, named as plist formats spell them (`string`, `integer`…).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case string, integer, real, boolean, date, data, array, dictionary
        case uid = "UID"
    }

    /// What kind of value this is; both integer cases are `.integer`, both real ones `.real`.
    public var kind: Kind {
        switch self {
        case .string: .string
        case .integer, .unsignedInteger: .integer
        case .real, .float: .real
        case .bool: .boolean
        case .date: .date
        case .data: .data
        case .array: .array
        case .dictionary: .dictionary
        case .uid: .uid
        }
    }

    /// The name of the kind of value, as plist formats spell it (`string`, `integer`…).
    public var kindName: String { kind.rawValue }
}
