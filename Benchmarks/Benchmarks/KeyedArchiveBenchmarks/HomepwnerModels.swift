import BenchmarkData
import Foundation
import KeyedArchive

// One Homepwner item three ways, each written the way its API's users write it: the
// book's NSCoding class for Foundation, the same class ported to KeyedCoding, and a
// Codable struct for PropertyListEncoder and JSONEncoder. All hold the same records.

/// The book's Item, ported to KeyedCoding with the same calls.
final class KeepsakeItem: KeyedCoding {
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    let dateCreated: Date
    let itemKey: String

    init(_ record: HomepwnerModels.Record) {
        (name, valueInDollars, serialNumber, dateCreated, itemKey) =
            (record.name, record.valueInDollars, record.serialNumber, record.dateCreated, record.itemKey)
    }

    func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(dateCreated, forKey: "dateCreated")
        aCoder.encode(itemKey, forKey: "itemKey")
        aCoder.encode(serialNumber, forKey: "serialNumber")
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
    }

    init(coder aDecoder: KeyedDecoder) throws {
        name = aDecoder.decodeObject(forKey: "name") as! String
        dateCreated = aDecoder.decodeObject(forKey: "dateCreated") as! Date
        itemKey = aDecoder.decodeObject(forKey: "itemKey") as! String
        serialNumber = aDecoder.decodeObject(forKey: "serialNumber") as! String?
        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
    }
}

/// The book's Item against Foundation.
final class FoundationItem: NSObject, NSCoding {
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    let dateCreated: Date
    let itemKey: String

    init(_ record: HomepwnerModels.Record) {
        (name, valueInDollars, serialNumber, dateCreated, itemKey) =
            (record.name, record.valueInDollars, record.serialNumber, record.dateCreated, record.itemKey)
    }

    func encode(with aCoder: NSCoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(dateCreated, forKey: "dateCreated")
        aCoder.encode(itemKey, forKey: "itemKey")
        aCoder.encode(serialNumber, forKey: "serialNumber")
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
    }

    required init?(coder aDecoder: NSCoder) {
        name = aDecoder.decodeObject(forKey: "name") as! String
        dateCreated = aDecoder.decodeObject(forKey: "dateCreated") as! Date
        itemKey = aDecoder.decodeObject(forKey: "itemKey") as! String
        serialNumber = aDecoder.decodeObject(forKey: "serialNumber") as! String?
        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
        super.init()
    }
}

/// The same item as a Codable value.
struct CodableItem: Codable {
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    var dateCreated: Date
    var itemKey: String

    init(_ record: HomepwnerModels.Record) {
        (name, valueInDollars, serialNumber, dateCreated, itemKey) =
            (record.name, record.valueInDollars, record.serialNumber, record.dateCreated, record.itemKey)
    }
}

enum HomepwnerModels {
    struct Record {
        var name: String
        var valueInDollars: Int
        var serialNumber: String?
        var dateCreated: Date
        var itemKey: String
    }

    /// `count` records from the shared generator, so every benchmark sees the same data.
    static func records(count: Int) -> [Record] {
        guard case .array(let items) = HomepwnerRecords.value(count: count) else { return [] }
        return items.map { item in
            Record(
                name: item["name"]?.stringValue ?? "", valueInDollars: Int(item["valueInDollars"]?.int64Value ?? 0),
                serialNumber: item["serialNumber"]?.stringValue, dateCreated: item["dateCreated"]?.dateValue ?? Date(),
                itemKey: item["itemKey"]?.stringValue ?? "")
        }
    }
}
