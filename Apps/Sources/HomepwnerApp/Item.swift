import Foundation
import KeyedArchive

/// One thing the user owns: the seeds' `Item`, ported.
///
/// The book's `class Item: NSObject, NSCoding` becomes a struct adopting
/// `KeyedSecureCoding`; `encode(with:)` and `init(coder:)` read as in the chapter, each
/// value asked for by type as secure decoding wants (no "safe plist type" warning). It is
/// archived as `Homepwner.Item`, the class name the book's app writes, so the archive
/// reads back in the original app.
///
/// ```swift
/// let item = Item(name: "Bike", serialNumber: "B1K3", valueInDollars: 300)
/// let random = Item.random()          // "Rusty Spork", $42, serial "E6R1X"
/// ```
package struct Item: KeyedSecureCoding, Identifiable, Sendable, Hashable {
    package static var supportsSecureCoding: Bool { true }
    package var name: String
    package var valueInDollars: Int
    /// Always `nil` under the first model (``model``), which had none.
    package var serialNumber: String? {
        didSet { if Self.model < 2 { serialNumber = nil } }
    }
    package let dateCreated: Date
    /// The item's identity, and the key of its photo in the image store.
    package let itemKey: String
    /// The item's identity in a shared store: its key.
    package var id: String { itemKey }

    package static var archiveClassName: String { "Homepwner.Item" }

    /// Which of the app's item models this process runs: 2, the current one, unless
    /// the environment sets `HOMEPWNER_ITEM_MODEL=1` for the first, which had no serial
    /// numbers. Running the first beside the current rehearses a rolling upgrade of a
    /// shared inventory: an older instance must keep the fields it does not know.
    package static let model = ProcessInfo.processInfo.environment["HOMEPWNER_ITEM_MODEL"] == "1" ? 1 : 2

    package init(
        name: String, serialNumber: String?, valueInDollars: Int, dateCreated: Date = Date(),
        itemKey: String = UUID().uuidString
    ) {
        self.name = name
        self.serialNumber = Self.model < 2 ? nil : serialNumber
        self.valueInDollars = valueInDollars
        self.dateCreated = dateCreated
        self.itemKey = itemKey
    }

    /// The book's adjectives and nouns for random items.
    package static let adjectives = ["Fluffy", "Rusty", "Shiny"]
    package static let nouns = ["Bear", "Spork", "Mac"]

    /// A random item, as the book's `init(random:)` makes one: an adjective and a noun,
    /// a value below 100 dollars, a five-character serial number.
    package static func random<G: RandomNumberGenerator>(using generator: inout G) -> Item {
        let adjective = adjectives.randomElement(using: &generator)!
        let noun = nouns.randomElement(using: &generator)!
        let value = Int.random(in: 0..<100, using: &generator)
        let serial = String(UUID().uuidString.prefix(5))
        return Item(name: "\(adjective) \(noun)", serialNumber: serial, valueInDollars: value)
    }

    package static func random() -> Item {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    package func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(dateCreated, forKey: "dateCreated")
        aCoder.encode(itemKey, forKey: "itemKey")
        if Self.model >= 2 { aCoder.encode(serialNumber, forKey: "serialNumber") }
        aCoder.encode(valueInDollars, forKey: "valueInDollars")
    }

    package init(coder aDecoder: KeyedDecoder) throws {
        name = try aDecoder.decode(String.self, forKey: "name")
        dateCreated = try aDecoder.decode(Date.self, forKey: "dateCreated")
        itemKey = try aDecoder.decode(String.self, forKey: "itemKey")
        serialNumber = Self.model < 2 ? nil : aDecoder.decodeObject(of: String.self, forKey: "serialNumber")
        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
    }
}
