import AppSandbox
import Foundation
import KeyedArchive

/// The meals of FoodTracker and their saving: the lesson's `MealTableViewController`
/// without the table.
///
/// The first run (no saved meals) starts with the three sample meals; every add,
/// edit and delete saves at once (`saveMeals()`), and later runs load what was saved
/// (`loadMeals()`), as the lesson's "Persist Data" step does. The archive is
/// `Documents/meals` in the app's container, the lesson's `Meal.ArchiveURL`.
///
/// ```swift
/// let list = try MealList(container: container)   // samples on first run
/// try list.add(Meal(name: "Soup", photo: nil, rating: 4)!)
/// ```
public final class MealList {
    /// The lesson's bundle identifier, naming the container.
    public static let identifier = "com.example.apple-samplecode.FoodTracker"

    public let container: AppContainer
    public private(set) var meals: [Meal]
    /// Whether the meals came from `sampleMeals()` because nothing was saved yet.
    public let startedWithSamples: Bool

    /// Corresponds to the lesson's `Meal.ArchiveURL`.
    public var archiveURL: URL { container.documentsDirectory.appendingPathComponent("meals") }

    /// Loads the saved meals, or the samples when none were ever saved.
    /// - Throws: ``KeyedArchiveError`` when the saved file is not an archive of meals;
    ///   the file is then left as it is.
    public init(container: AppContainer) throws {
        self.container = container
        try container.createDirectories()
        if let saved = try Self.loadMeals(from: container.documentsDirectory.appendingPathComponent("meals")) {
            meals = saved
            startedWithSamples = false
        } else {
            meals = Self.sampleMeals()
            startedWithSamples = true
        }
    }

    /// The lesson's three sample meals.
    public static func sampleMeals() -> [Meal] {
        [
            Meal(name: "Caprese Salad", photo: SamplePhotos.meal1, rating: 4)!,
            Meal(name: "Chicken and Potatoes", photo: SamplePhotos.meal2, rating: 5)!,
            Meal(name: "Pasta with Meatballs", photo: SamplePhotos.meal3, rating: 3)!,
        ]
    }

    /// Adds `meal` at the end and saves.
    public func add(_ meal: Meal) throws {
        meals.append(meal)
        do { try saveMeals() } catch { meals.removeLast(); throw error }
    }

    /// Replaces the meal at `index` and saves.
    /// - Throws: ``MealListError`` `.noSuchMeal`, or the save's error (nothing changes).
    public func update(at index: Int, _ body: (inout Meal) throws -> Void) throws {
        guard meals.indices.contains(index) else { throw MealListError.noSuchMeal(index) }
        let old = meals[index]
        var meal = old
        try body(&meal)
        guard Meal(name: meal.name, photo: meal.photo, rating: meal.rating) != nil else {
            throw MealListError.invalidMeal
        }
        meals[index] = meal
        do { try saveMeals() } catch { meals[index] = old; throw error }
    }

    /// Removes the meal at `index` and saves.
    @discardableResult
    public func remove(at index: Int) throws -> Meal {
        guard meals.indices.contains(index) else { throw MealListError.noSuchMeal(index) }
        let meal = meals.remove(at: index)
        do { try saveMeals() } catch { meals.insert(meal, at: index); throw error }
        return meal
    }

    /// Corresponds to the lesson's `saveMeals()`: archives every meal, durably.
    public func saveMeals() throws {
        try KeyedArchiver.archive(meals, to: archiveURL)
    }

    /// Corresponds to the lesson's `loadMeals()`: `nil` when nothing was saved.
    public static func loadMeals(from url: URL) throws -> [Meal]? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try KeyedUnarchiver.unarchivedObject(ofClass: [Meal].self, contentsOf: url) ?? []
    }
}

public enum MealListError: Error, CustomStringConvertible, Equatable {
    case noSuchMeal(Int)
    case invalidMeal

    public var description: String {
        switch self {
        case .noSuchMeal(let index): "there is no meal number \(index + 1)"
        case .invalidMeal: "a meal needs a name and a rating from 0 to 5"
        }
    }
}
