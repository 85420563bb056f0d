import Foundation
import KeyedArchive

/// A meal with a name, an optional photo and a 0–5 rating: the FoodTracker lesson's
/// `Meal`, ported.
///
/// `class Meal: NSObject, NSCoding` becomes a struct adopting `KeyedSecureCoding`,
/// which reads each value asked for by type, as secure decoding wants; the
/// lesson's `PropertyKey` names the archive keys, and the failable initialiser
/// refuses an empty name or a rating outside 0…5 as the lesson's does. The photo is
/// kept as image bytes (the lesson's `UIImage`). Archived as `FoodTracker.Meal`.
/// Unlike the lesson's, each meal has an identity, so that a list shared through a
/// database can tell an edit of a meal from another meal.
package struct Meal: KeyedSecureCoding, Sendable, Hashable, Identifiable {
    package static var supportsSecureCoding: Bool { true }
    package struct PropertyKey {
        package static let name = "name"
        package static let photo = "photo"
        package static let rating = "rating"
        package static let id = "id"
    }

    package static let ratingRange = 0...5

    package var name: String
    package var photo: Data?
    package var rating: Int
    /// Empty for a meal saved before meals had one, until ``MealList`` gives it one.
    package var id: String

    package static var archiveClassName: String { "FoodTracker.Meal" }

    /// Fails when `name` is empty or `rating` is outside 0…5, as the lesson's does.
    package init?(name: String, photo: Data?, rating: Int, id: String = UUID().uuidString) {
        guard !name.isEmpty, Self.ratingRange.contains(rating) else { return nil }
        self.name = name
        self.photo = photo
        self.rating = rating
        self.id = id
    }

    package func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: PropertyKey.name)
        aCoder.encode(photo, forKey: PropertyKey.photo)
        aCoder.encode(rating, forKey: PropertyKey.rating)
        aCoder.encode(id, forKey: PropertyKey.id)
    }

    /// - Throws: ``MealDecodingError`` where the lesson logged "Unable to decode the
    ///   name for a Meal object." and returned `nil`.
    package init(coder aDecoder: KeyedDecoder) throws {
        guard let name = aDecoder.decodeObject(of: String.self, forKey: PropertyKey.name) else {
            throw MealDecodingError(message: "Unable to decode the name for a Meal object.")
        }
        // Because photo is an optional property of Meal, nil is fine.
        let photo = aDecoder.decodeObject(of: Data.self, forKey: PropertyKey.photo)
        let rating = aDecoder.decodeInteger(forKey: PropertyKey.rating)
        let id = aDecoder.decodeObject(of: String.self, forKey: PropertyKey.id) ?? ""
        guard let meal = Meal(name: name, photo: photo, rating: rating, id: id) else {
            throw MealDecodingError(message: "A saved meal has an empty name or a rating outside 0…5.")
        }
        self = meal
    }
}

/// Why a saved meal could not be read.
package struct MealDecodingError: Error, CustomStringConvertible, Sendable {
    package var message: String
    package var description: String { message }
}
