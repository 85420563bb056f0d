// The Homepwner book's Item, ported from NSCoding with small edits, saved to the
// book's items.archive and loaded back.
import Foundation
import Keepsake

final class Item: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    let dateCreated: Date
    let itemKey: String

    // snippet.hide
    init(name: String, serialNumber: String?, valueInDollars: Int) {
        self.name = name
        self.valueInDollars = valueInDollars
        self.serialNumber = serialNumber
        dateCreated = Date()
        itemKey = UUID().uuidString
    }

    // snippet.show
    func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(dateCreated, forKey: "dateCreated")
        aCoder.encode(itemKey, forKey: "itemKey")
        aCoder.encode(serialNumber, forKey: "serialNumber")
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
    }

    required init(coder aDecoder: KeyedDecoder) throws {
        name = try aDecoder.decode(String.self, forKey: "name")
        dateCreated = try aDecoder.decode(Date.self, forKey: "dateCreated")
        itemKey = try aDecoder.decode(String.self, forKey: "itemKey")
        serialNumber = aDecoder.decodeObject(forKey: "serialNumber") as? String
        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
    }
}

// snippet.hide
let container = try AppContainer.temporary(identifier: "com.example.Homepwner")
defer { try? container.destroy() }
// snippet.show
let itemArchiveURL = container.documentsDirectory.appendingPathComponent("items.archive")
var allItems = [Item(name: "Rusty Spork", serialNumber: "E6R1X", valueInDollars: 42)]

try KeyedArchiver.archive(allItems, to: itemArchiveURL)  // durable and atomic; throws why it failed
allItems = try KeyedUnarchiver.unarchivedObject(ofClass: [Item].self, contentsOf: itemArchiveURL) ?? []
print(allItems.map { "\($0.name): $\($0.valueInDollars)" })  // ["Rusty Spork: $42"]
