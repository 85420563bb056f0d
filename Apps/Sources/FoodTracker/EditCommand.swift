import AppSandbox
import ArgumentParser
import FoodTrackerApp
import Foundation

extension FoodTracker {
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a meal, rate it, or change its photo.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's number, as listed.") var number: Int
        @Option(help: "New name.") var name: String?
        @Option(help: "New rating from 0 to 5.") var rating: Int?
        @Option(help: "New photo file.") var photo: String?
        @Flag(help: "Remove the photo.") var noPhoto = false

        @MainActor func run() async throws {
            let (list, share) = try await options.mealList()
            let at = try index(of: number, in: list)
            let newPhoto = try photo.map(readPhoto)
            do {
                try list.update(at: at) { meal in
                    if let name { meal.name = name }
                    if let rating { meal.rating = rating }
                    if let newPhoto { meal.photo = newPhoto }
                    if noPhoto { meal.photo = nil }
                }
            } catch let error as MealListError {
                throw ValidationFailure(error.description)
            }
            try await share()
            print("Saved \(number). \(list.meals[at].name)  \(stars(list.meals[at].rating))")
        }
    }
}
