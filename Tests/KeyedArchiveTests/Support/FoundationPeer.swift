import Foundation
import KeyedArchive

/// Homepwner's Item exactly as the book writes it against Foundation, to archive and
/// unarchive with Foundation's own `NSKeyedArchiver` / `NSKeyedUnarchiver`.
final class FoundationItem: NSObject, NSCoding {
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    let dateCreated: Date
    let itemKey: String

    init(_ item: Item) {
        name = item.name
        valueInDollars = item.valueInDollars
        serialNumber = item.serialNumber
        dateCreated = item.dateCreated
        itemKey = item.itemKey
    }

    func encode(with aCoder: NSCoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(dateCreated, forKey: "dateCreated")
        aCoder.encode(itemKey, forKey: "itemKey")
        aCoder.encode(serialNumber, forKey: "serialNumber")
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
    }

    required init(coder aDecoder: NSCoder) {
        name = aDecoder.decodeObject(forKey: "name") as! String
        dateCreated = aDecoder.decodeObject(forKey: "dateCreated") as! Date
        itemKey = aDecoder.decodeObject(forKey: "itemKey") as! String
        serialNumber = aDecoder.decodeObject(forKey: "serialNumber") as! String?
        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
        super.init()
    }

    var item: Item {
        Item(
            name: name, serialNumber: serialNumber, valueInDollars: valueInDollars, dateCreated: dateCreated,
            itemKey: itemKey)
    }

    /// The name Foundation writes for this class (`KeyedArchiveTests.FoundationItem`).
    static var archivedName: String { NSStringFromClass(FoundationItem.self) }
}

enum FoundationPeer {
    static func archive(_ root: Any, format: PropertyListSerialization.PropertyListFormat = .binary) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = format
        archiver.encode(root, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    static func unarchive(_ data: Data) throws -> Any? {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        defer { unarchiver.finishDecoding() }
        return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
    }
}

extension Item {
    /// Items as the benchmarks make them: fixed values so every peer sees the same data.
    static func samples(_ count: Int) -> [Item] {
        let names = ["Fluffy Bear", "Rusty Spork", "Shiny Mac"]
        return (0..<count).map { (index: Int) -> Item in
            let serial: String? = index % 4 == 0 ? nil : String(index * 7919, radix: 16, uppercase: true)
            let created = Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(index) * 1.25)
            let key =
                "E621E1F8-C36C-495A-93FC-"
                + String(String(index, radix: 16).reversed()).padding(toLength: 12, withPad: "0", startingAt: 0)
            return Item(
                name: names[index % 3], serialNumber: serial, valueInDollars: index % 100, dateCreated: created,
                itemKey: key)
        }
    }
}
