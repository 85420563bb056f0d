#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PropertyListValue: Hashable {
    /// Numeric, order-insensitive equality; see ``PropertyListValue`` for the rules.
    /// Recurses once per level of nesting, without a bound (see ``PropertyListValue``
    /// on depth): the readers' limits are what keep values shallow.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.date(let a), .date(let b)):
            return sameReal(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        case (.data(let a), .data(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.dictionary(let a), .dictionary(let b)): return a == b
        case (.uid(let a), .uid(let b)): return a == b
        default:
            if let a = lhs.integerBits, let b = rhs.integerBits { return a == b }
            if let a = lhs.doubleValue, let b = rhs.doubleValue { return sameReal(a, b) }
            return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let s):
            hasher.combine(0)
            hasher.combine(s)
        case .integer, .unsignedInteger:
            let bits = integerBits!
            hasher.combine(1)
            hasher.combine(bits.negative)
            hasher.combine(bits.magnitude)
        case .real, .float:
            let value = doubleValue!
            hasher.combine(2)
            hasher.combine(value.isNaN ? .nan : value)
        case .bool(let b):
            hasher.combine(3)
            hasher.combine(b)
        case .date(let d):
            hasher.combine(4)
            hasher.combine(d.timeIntervalSinceReferenceDate)
        case .data(let d):
            hasher.combine(5)
            hasher.combine(d)
        case .array(let a):
            hasher.combine(6)
            hasher.combine(a)
        case .dictionary(let d):
            hasher.combine(7)
            hasher.combine(d)
        case .uid(let u):
            hasher.combine(8)
            hasher.combine(u)
        }
    }

    /// Integers as sign and magnitude, so signed and unsigned cases compare numerically.
    private var integerBits: (negative: Bool, magnitude: UInt64)? {
        switch self {
        case .integer(let i): (i < 0, i.magnitude)
        case .unsignedInteger(let u): (false, u)
        default: nil
        }
    }

    private static func sameReal(_ a: Double, _ b: Double) -> Bool {
        a == b || (a.isNaN && b.isNaN)
    }
}
