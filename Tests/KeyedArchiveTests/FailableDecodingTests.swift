import Foundation
import KeyedArchive
import Testing

/// An archive of one meal whose fields were changed after it was written.
private final class RawMeal: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    static var archiveClassName: String { Meal.archiveClassName }
    let name: String?
    let rating: Int
    init(name: String?, rating: Int) {
        self.name = name
        self.rating = rating
    }
    func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: Meal.PropertyKey.name)
        aCoder.encode(rating, forKey: Meal.PropertyKey.rating)
    }
    init(coder aDecoder: KeyedDecoder) throws { throw KeyedArchiveError(.decodingFailed, "never decoded") }
}

/// FoodTracker's `Meal` (see SeedModels.swift) decodes through its failable
/// `init?(coder:)`; a `nil` from it is a typed error from the throwing API, never a trap.
struct FailableDecodingTests {
    @Test func aRatingOfNineIsATypedErrorNotATrap() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [RawMeal(name: "Pizza", rating: 9)])
        let error = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Meal.self, from: data)
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.className == Meal.archiveClassName)
        #expect(error?.description.contains("returned nil") == true, "\(String(describing: error))")
        #expect(error?.keyPath == "root[0]")
    }

    @Test func aMissingNameIsATypedError() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [RawMeal(name: nil, rating: 3)])
        let error = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Meal.self, from: data)
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.className == Meal.archiveClassName)
    }
}
