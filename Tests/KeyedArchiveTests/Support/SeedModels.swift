import Foundation
import KeyedArchive

// The seeds' model classes, ported with the small edits the KeyedCoding documentation
// lists: `NSObject, NSCoding` → `KeyedCoding`, `NSCoder` → `KeyedEncoder`/`KeyedDecoder`,
// `init?(coder:)` stays. Bodies are the books' own.

/// Homepwner's Item (BNR ch. 16), decoded with the book's `decodeObject(forKey:)` calls.
final class Item: KeyedSecureCoding, Equatable {
    static var supportsSecureCoding: Bool { true }
    var name: String
    var valueInDollars: Int
    var serialNumber: String?
    let dateCreated: Date
    let itemKey: String

    init(
        name: String, serialNumber: String?, valueInDollars: Int, dateCreated: Date = Date(),
        itemKey: String = UUID().uuidString
    ) {
        self.name = name
        self.valueInDollars = valueInDollars
        self.serialNumber = serialNumber
        self.dateCreated = dateCreated
        self.itemKey = itemKey
    }

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
        itemKey = aDecoder.decodeObject(forKey: "itemKey") as? String ?? ""
        serialNumber = aDecoder.decodeObject(forKey: "serialNumber") as! String?

        valueInDollars = aDecoder.decodeInteger(forKey: "valueInDollars")
    }

    static func == (lhs: Item, rhs: Item) -> Bool {
        lhs.name == rhs.name && lhs.valueInDollars == rhs.valueInDollars && lhs.serialNumber == rhs.serialNumber
            && lhs.dateCreated == rhs.dateCreated && lhs.itemKey == rhs.itemKey
    }
}

/// FoodTracker's Meal (Apple's "Persist Data" lesson), as the lesson writes it: a
/// failable designated initialiser that refuses an empty name or a rating outside 0–5,
/// and a `required convenience init?(coder:)` that returns `nil` when the name is
/// missing and otherwise delegates to it. The photo is JPEG data here, UIImage being
/// out of reach.
final class Meal: KeyedSecureCoding, Equatable {
    static var supportsSecureCoding: Bool { true }
    struct PropertyKey {
        static let name = "name"
        static let photo = "photo"
        static let rating = "rating"
    }

    var name: String
    var photo: Data?
    var rating: Int

    init?(name: String, photo: Data?, rating: Int) {
        // The name must not be empty
        guard !name.isEmpty else { return nil }
        // The rating must be between 0 and 5 inclusively
        guard rating >= 0 && rating <= 5 else { return nil }
        self.name = name
        self.photo = photo
        self.rating = rating
    }

    func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: PropertyKey.name)
        aCoder.encode(photo, forKey: PropertyKey.photo)
        aCoder.encode(rating, forKey: PropertyKey.rating)
    }

    required convenience init?(coder aDecoder: KeyedDecoder) {
        // The name is required. If we cannot decode a name string, the initializer should fail.
        guard let name = aDecoder.decodeObject(forKey: PropertyKey.name) as? String else {
            return nil
        }
        // Because photo is an optional property of Meal, just use conditional cast.
        let photo = aDecoder.decodeObject(forKey: PropertyKey.photo) as? Data
        let rating = aDecoder.decodeInteger(forKey: PropertyKey.rating)
        // Must call designated initializer.
        self.init(name: name, photo: photo, rating: rating)
    }

    static func == (lhs: Meal, rhs: Meal) -> Bool {
        lhs.name == rhs.name && lhs.photo == rhs.photo && lhs.rating == rhs.rating
    }
}

/// Neuburg's Person: keys "first" and "last", decoded with `decodeObject(forKey:)!`.
final class Person: KeyedSecureCoding, CustomStringConvertible {
    static var supportsSecureCoding: Bool { true }
    var firstName: String
    var lastName: String
    var description: String { firstName + " " + lastName }

    init(firstName: String, lastName: String) {
        self.firstName = firstName
        self.lastName = lastName
    }

    func encode(with coder: KeyedEncoder) {
        // do not call super in this case
        coder.encode(lastName, forKey: "last")
        coder.encode(firstName, forKey: "first")
    }

    required init(coder: KeyedDecoder) throws {
        lastName = coder.decodeObject(forKey: "last")! as! String
        firstName = coder.decodeObject(forKey: "first")! as! String
    }
}
