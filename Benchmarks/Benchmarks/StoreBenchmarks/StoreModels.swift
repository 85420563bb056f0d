import BenchmarkData
import Foundation
import KeyedArchive

/// One Homepwner record, from the shared generator.
struct StoreRecord {
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    var dateCreated: Date
    var itemKey: String
}

enum StoreRecords {
    static func records(count: Int) -> [StoreRecord] {
        guard case .array(let items) = HomepwnerRecords.value(count: count) else { return [] }
        return items.map { item in
            StoreRecord(
                name: item["name"]?.stringValue ?? "", valueInDollars: Int(item["valueInDollars"]?.int64Value ?? 0),
                serialNumber: item["serialNumber"]?.stringValue, dateCreated: item["dateCreated"]?.dateValue ?? Date(),
                itemKey: item["itemKey"]?.stringValue ?? "")
        }
    }
}

/// The book's Item ported to KeyedCoding, as a Sendable value for the item store.
struct StoreItem: KeyedCoding, Sendable {
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    var dateCreated: Date
    var itemKey: String

    init(_ record: StoreRecord) {
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
        name = try aDecoder.decode(String.self, forKey: "name")
        dateCreated = try aDecoder.decode(Date.self, forKey: "dateCreated")
        itemKey = try aDecoder.decode(String.self, forKey: "itemKey")
        serialNumber = try aDecoder.decodeIfPresent(String.self, forKey: "serialNumber")
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

    init(_ record: StoreRecord) {
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
