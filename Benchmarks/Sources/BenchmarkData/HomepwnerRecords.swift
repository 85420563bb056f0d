import Foundation
import PropertyList
import TestSupport

/// The data every benchmark shares: Homepwner items as the seeds define them (name,
/// serial number, value in dollars, date created, item key), generated from a fixed
/// seed so every run and every peer sees the same bytes.
public enum HomepwnerRecords {
    static let adjectives = ["Fluffy", "Rusty", "Shiny"]
    static let nouns = ["Bear", "Spork", "Mac"]

    /// `count` records as a property-list array of dictionaries.
    public static func value(count: Int) -> PropertyListValue {
        var generator = SplitMix64(seed: 42)
        var items: [PropertyListValue] = []
        items.reserveCapacity(count)
        for _ in 0..<count {
            let name = "\(adjectives[Int(generator.next() % 3)]) \(nouns[Int(generator.next() % 3)])"
            let serial = String(generator.next() % 0xFF_FFFF, radix: 16, uppercase: true)
            let item: PropertyListValue = [
                "name": .string(name),
                "serialNumber": .string(serial),
                "valueInDollars": .integer(Int64(generator.next() % 100)),
                "dateCreated": .date(
                    Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(generator.next() % 10_000_000) / 1_000)),
                "itemKey": .string(UUID(uuid: generator.uuidBytes()).uuidString),
            ]
            items.append(item)
        }
        return .array(items)
    }

    /// The same records as Foundation objects, for `PropertyListSerialization`.
    public static func foundationObject(count: Int) -> Any {
        guard case .array(let items) = value(count: count) else { return [] }
        return items.map { item -> [String: Any] in
            var dictionary: [String: Any] = [:]
            for (key, value) in item.dictionaryValue! {
                switch value {
                case .string(let s): dictionary[key] = s
                case .integer(let i): dictionary[key] = Int(i)
                case .date(let d): dictionary[key] = d
                default: break
                }
            }
            return dictionary
        }
    }
}

extension SplitMix64 {
    /// A version 4 UUID from the next two draws.
    mutating func uuidBytes() -> uuid_t {
        let a = next()
        let b = next()
        return (
            UInt8(truncatingIfNeeded: a), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a >> 16),
            UInt8(truncatingIfNeeded: a >> 24), UInt8(truncatingIfNeeded: a >> 32), UInt8(truncatingIfNeeded: a >> 40),
            UInt8(truncatingIfNeeded: a >> 48) & 0x0F | 0x40, UInt8(truncatingIfNeeded: a >> 56),
            UInt8(truncatingIfNeeded: b) & 0x3F | 0x80, UInt8(truncatingIfNeeded: b >> 8),
            UInt8(truncatingIfNeeded: b >> 16),
            UInt8(truncatingIfNeeded: b >> 24), UInt8(truncatingIfNeeded: b >> 32), UInt8(truncatingIfNeeded: b >> 40),
            UInt8(truncatingIfNeeded: b >> 48), UInt8(truncatingIfNeeded: b >> 56)
        )
    }
}
