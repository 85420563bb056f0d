import AppSandbox
import AppStores
import Foundation
import KeyedArchive

/// The meals of FoodTracker and their saving: the lesson's `MealTableViewController`
/// without the table, over an ``ItemStore``.
///
/// The first run (no saved meals) starts with the three sample meals; every add,
/// edit and delete saves at once (the lesson's `saveMeals()`), and later runs load
/// what was saved (`loadMeals()`). The archive is `Documents/meals` in the app's
/// container, the lesson's `Meal.ArchiveURL`. It lives on the main actor, with its
/// item store, as the lesson's table view controller does.
///
/// ```swift
/// let list = try MealList(container: container)   // samples on first run
/// try list.add(Meal(name: "Soup", photo: nil, rating: 4)!)
/// ```
@MainActor
package final class MealList {
    /// The lesson's bundle identifier, naming the container.
    package nonisolated static let identifier = "com.example.apple-samplecode.FoodTracker"

    package let container: AppContainer
    /// The meals and their archive.
    package let store: ItemStore<Meal>
    /// Whether the meals came from `sampleMeals()` because nothing was saved yet.
    package let startedWithSamples: Bool

    package var meals: [Meal] { store.allItems }

    /// Corresponds to the lesson's `Meal.ArchiveURL`.
    package var archiveURL: URL { container.documentsDirectory.appendingPathComponent("meals") }

    /// Loads the saved meals, or the samples when none were ever saved (an empty
    /// saved list stays empty) and `withSamples`. Meals saved before meals had an
    /// identity are given one, saved at once.
    /// - Throws: `StoreError` `.corruptArchive` when the saved file is not an archive
    ///   of meals; the file is then left as it is.
    package init(container: AppContainer, withSamples: Bool = true) throws {
        self.container = container
        try container.createDirectories()
        let backend = ArchiveFileBackend<Meal>(container: container, fileName: "meals")
        startedWithSamples = withSamples && !FileManager.default.fileExists(atPath: backend.url.path)
        store = try ItemStore(backend: backend)
        if startedWithSamples { store.replaceAll(with: Self.sampleMeals()) }
        if store.updateAll(where: { $0.id.isEmpty }, { $0.id = UUID().uuidString }) > 0 { try store.save() }
    }

    /// The lesson's three sample meals.
    package static func sampleMeals() -> [Meal] {
        [
            Meal(name: "Caprese Salad", photo: SamplePhotos.meal1, rating: 4, id: "sample-1")!,
            Meal(name: "Chicken and Potatoes", photo: SamplePhotos.meal2, rating: 5, id: "sample-2")!,
            Meal(name: "Pasta with Meatballs", photo: SamplePhotos.meal3, rating: 3, id: "sample-3")!,
        ]
    }

    /// Adds `meal` at the end and saves.
    /// - Throws: the save's error; the meal is then not added.
    package func add(_ meal: Meal) throws {
        try change { store.add(meal) }
    }

    /// Changes the meal at `index` and saves.
    /// - Throws: ``MealListError`` `.noSuchMeal`, `.invalidMeal`, or the save's error;
    ///   nothing changes then.
    package func update(at index: Int, _ body: (inout Meal) throws -> Void) throws {
        guard var meal = store.item(at: index) else { throw MealListError.noSuchMeal(index) }
        try body(&meal)
        guard Meal(name: meal.name, photo: meal.photo, rating: meal.rating) != nil else {
            throw MealListError.invalidMeal
        }
        try change { _ = store.update(at: index) { $0 = meal } }
    }

    /// Removes the meal at `index` and saves.
    /// - Throws: ``MealListError`` `.noSuchMeal`, or the save's error (nothing changes).
    @discardableResult
    package func remove(at index: Int) throws -> Meal {
        guard let meal = store.item(at: index) else { throw MealListError.noSuchMeal(index) }
        try change { _ = store.remove(at: index) }
        return meal
    }

    /// Corresponds to the lesson's `saveMeals()`: archives every meal, durably.
    package func saveMeals() throws { try store.save() }

    /// Applies `body` and saves; on a failed save, puts the meals back as they were.
    private func change(_ body: () -> Void) throws {
        let before = store.allItems
        body()
        do {
            try store.save()
        } catch {
            store.replaceAll(with: before)
            throw error
        }
    }
}

package enum MealListError: Error, CustomStringConvertible, Equatable {
    case noSuchMeal(Int)
    case invalidMeal

    package var description: String {
        switch self {
        case .noSuchMeal(let index): "there is no meal number \(index + 1)"
        case .invalidMeal: "a meal needs a name and a rating from 0 to 5"
        }
    }
}
