import Foundation
import KeyedArchive

// One Homepwner item four ways, each written the way its API's users write it: the
// book's NSCoding class for Foundation, the same class ported to KeyedCoding, a
// Sendable struct for the item store, and a Codable struct for PropertyListEncoder and
// JSONEncoder. All hold the same records.

/// The book's Item, ported to KeyedSecureCoding with the same calls, but for the date:
/// secure decoding wants it asked for by type (`NSDate` is not among the classes of the
/// item's array), as Foundation's does.
public final class KeepsakeItem: KeyedSecureCoding {
    public static var supportsSecureCoding: Bool { true }
    public var name: String
    public var valueInDollars: Int
    public var serialNumber: String?
    public let dateCreated: Date
    public let itemKey: String

    public init(_ record: HomepwnerModels.Record) {
        (name, valueInDollars, serialNumber, dateCreated, itemKey) =
            (record.name, record.valueInDollars, record.serialNumber, record.dateCreated, record.itemKey)
    }

    public func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(dateCreated, forKey: "dateCreated")
        aCoder.encode(itemKey, forKey: "itemKey")
        aCoder.encode(serialNumber, forKey: "serialNumber")
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
    }

    public init(coder aDecoder: KeyedDecoder) throws {
        name = aDecoder.decodeObject(forKey: "name") as! String
        dateCreated = aDecoder.decodeObject(of: Date.self, forKey: "dateCreated")!
        itemKey = aDecoder.decodeObject(forKey: "itemKey") as! String
        serialNumber = aDecoder.decodeObject(forKey: "serialNumber") as! String?
        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
    }
}

/// The book's Item ported to KeyedCoding, as a Sendable value for the item store.
public struct StoreItem: KeyedSecureCoding, Sendable {
    public static var supportsSecureCoding: Bool { true }
    public var name: String
    public var valueInDollars: Int
    public var serialNumber: String?
    public var dateCreated: Date
    public var itemKey: String

    public init(_ record: HomepwnerModels.Record) {
        (name, valueInDollars, serialNumber, dateCreated, itemKey) =
            (record.name, record.valueInDollars, record.serialNumber, record.dateCreated, record.itemKey)
    }

    public func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(dateCreated, forKey: "dateCreated")
        aCoder.encode(itemKey, forKey: "itemKey")
        aCoder.encode(serialNumber, forKey: "serialNumber")
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
    }

    public init(coder aDecoder: KeyedDecoder) throws {
        name = try aDecoder.decode(String.self, forKey: "name")
        dateCreated = try aDecoder.decode(Date.self, forKey: "dateCreated")
        itemKey = try aDecoder.decode(String.self, forKey: "itemKey")
        serialNumber = try aDecoder.decodeIfPresent(String.self, forKey: "serialNumber")
        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
    }
}

/// The book's Item against Foundation.
public final class FoundationItem: NSObject, NSCoding {
    public var name: String
    public var valueInDollars: Int
    public var serialNumber: String?
    public let dateCreated: Date
    public let itemKey: String

    public init(_ record: HomepwnerModels.Record) {
        (name, valueInDollars, serialNumber, dateCreated, itemKey) =
            (record.name, record.valueInDollars, record.serialNumber, record.dateCreated, record.itemKey)
    }

    public func encode(with aCoder: NSCoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(dateCreated, forKey: "dateCreated")
        aCoder.encode(itemKey, forKey: "itemKey")
        aCoder.encode(serialNumber, forKey: "serialNumber")
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
    }

    public required init?(coder aDecoder: NSCoder) {
        name = aDecoder.decodeObject(forKey: "name") as! String
        dateCreated = aDecoder.decodeObject(forKey: "dateCreated") as! Date
        itemKey = aDecoder.decodeObject(forKey: "itemKey") as! String
        serialNumber = aDecoder.decodeObject(forKey: "serialNumber") as! String?
        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
        super.init()
    }
}

/// The same item as a Codable value.
public struct CodableItem: Codable {
    public var name: String
    public var valueInDollars: Int
    public var serialNumber: String?
    public var dateCreated: Date
    public var itemKey: String

    public init(_ record: HomepwnerModels.Record) {
        (name, valueInDollars, serialNumber, dateCreated, itemKey) =
            (record.name, record.valueInDollars, record.serialNumber, record.dateCreated, record.itemKey)
    }
}

public enum HomepwnerModels {
    public struct Record {
        public var name: String
        public var valueInDollars: Int
        public var serialNumber: String?
        public var dateCreated: Date
        public var itemKey: String
    }

    /// `count` records from the shared generator, so every benchmark sees the same data.
    public static func records(count: Int) -> [Record] {
        guard case .array(let items) = HomepwnerRecords.value(count: count) else { return [] }
        return items.map { item in
            Record(
                name: item["name"]?.stringValue ?? "", valueInDollars: Int(item["valueInDollars"]?.int64Value ?? 0),
                serialNumber: item["serialNumber"]?.stringValue, dateCreated: item["dateCreated"]?.dateValue ?? Date(),
                itemKey: item["itemKey"]?.stringValue ?? "")
        }
    }
}
