import AppSandbox
import FoodTrackerApp
import Foundation
import KeyedArchive
import Testing

@Suite("FoodTracker meals")
@MainActor struct MealListTests {
    @Test("The lesson's failable initialiser refuses empty names and ratings outside 0…5")
    func failableInit() {
        #expect(Meal(name: "", photo: nil, rating: 3) == nil)
        #expect(Meal(name: "Soup", photo: nil, rating: -1) == nil)
        #expect(Meal(name: "Soup", photo: nil, rating: 6) == nil)
        #expect(Meal(name: "Soup", photo: nil, rating: 0) != nil)
    }

    @Test("The first run starts with the three sample meals")
    func firstRunSamples() throws {
        let container = try AppContainer.temporary(identifier: MealList.identifier)
        defer { try? container.destroy() }
        let list = try MealList(container: container)
        #expect(list.startedWithSamples)
        #expect(list.meals.map(\.name) == ["Caprese Salad", "Chicken and Potatoes", "Pasta with Meatballs"])
        #expect(list.meals.map(\.rating) == [4, 5, 3])
        #expect(list.meals.allSatisfy { $0.photo?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true })
        #expect(!FileManager.default.fileExists(atPath: list.archiveURL.path), "nothing is saved before a change")
    }

    @Test("Every add, edit and delete is saved; later runs load the saved meals, not the samples")
    func persistence() throws {
        let container = try AppContainer.temporary(identifier: MealList.identifier)
        defer { try? container.destroy() }
        let photo = Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3])
        do {
            let list = try MealList(container: container)
            try list.add(Meal(name: "Soup", photo: photo, rating: 2)!)
        }
        do {
            let list = try MealList(container: container)
            #expect(!list.startedWithSamples)
            #expect(
                list.meals.map(\.name) == ["Caprese Salad", "Chicken and Potatoes", "Pasta with Meatballs", "Soup"])
            #expect(list.meals[3].photo == photo)
            try list.update(at: 3) {
                $0.rating = 5
                $0.name = "Tomato Soup"
            }
        }
        do {
            let list = try MealList(container: container)
            #expect(list.meals[3] == Meal(name: "Tomato Soup", photo: photo, rating: 5, id: list.meals[3].id))
            try list.remove(at: 0)
            try list.remove(at: 0)
            try list.remove(at: 0)
        }
        do {
            let list = try MealList(container: container)
            #expect(list.meals.map(\.name) == ["Tomato Soup"])
            try list.remove(at: 0)
        }
        let list = try MealList(container: container)
        #expect(list.meals.isEmpty, "deleting every meal must not bring the samples back")
        #expect(!list.startedWithSamples)
    }

    @Test("A bad edit changes nothing, in memory or on disk")
    func badEdit() throws {
        let container = try AppContainer.temporary(identifier: MealList.identifier)
        defer { try? container.destroy() }
        let list = try MealList(container: container)
        try list.saveMeals()
        #expect(throws: MealListError.invalidMeal) { try list.update(at: 0) { $0.rating = 9 } }
        #expect(throws: MealListError.invalidMeal) { try list.update(at: 0) { $0.name = "" } }
        #expect(throws: MealListError.noSuchMeal(7)) { try list.remove(at: 7) }
        #expect(list.meals == MealList.sampleMeals())
        #expect(try MealList(container: container).meals == MealList.sampleMeals())
    }

    @Test("A damaged archive is reported and left as it is")
    func corruptArchive() throws {
        let container = try AppContainer.temporary(identifier: MealList.identifier)
        defer { try? container.destroy() }
        let garbage = Data("not an archive".utf8)
        try container.directory(.documents).write(garbage, to: "meals")
        #expect(throws: (any Error).self) { try MealList(container: container) }
        #expect(try container.directory(.documents).contents(of: "meals") == garbage)
    }

    @Test("Meals are archived as FoodTracker.Meal under the lesson's keys")
    func archiveFormat() throws {
        let meal = Meal(name: "Soup", photo: nil, rating: 4)!
        let data = try KeyedArchiver.archivedData(withRootObject: [meal])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("FoodTracker.Meal"))
        #expect(text.contains("rating"))
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [Meal].self, from: data) == [meal])
    }
}
