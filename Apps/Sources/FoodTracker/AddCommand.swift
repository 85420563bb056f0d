import AppSandbox
import ArgumentParser
import FoodTrackerApp
import Foundation

extension FoodTracker {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a meal.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's name.") var name: String
        @Option(help: "Rating from 0 to 5.") var rating = 0
        @Option(help: "A photo file (JPEG or PNG).") var photo: String?

        @MainActor func run() async throws {
            let (list, share) = try await options.mealList()
            guard let meal = Meal(name: name, photo: try photo.map(readPhoto), rating: rating) else {
                throw ValidationFailure("a meal needs a name and a rating from 0 to 5")
            }
            try list.add(meal)
            try await share()
            print("Added \(list.meals.count). \(meal.name)  \(stars(meal.rating))")
        }
    }
}
