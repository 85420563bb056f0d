import AppSandbox
import ArgumentParser
import FoodTrackerApp
import Foundation

extension FoodTracker {
    struct Rate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rate a meal from 0 to 5.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's number, as listed.") var number: Int
        @Argument(help: "Rating from 0 to 5.") var rating: Int

        @MainActor func run() async throws {
            let (list, share) = try await options.mealList()
            let at = try index(of: number, in: list)
            guard Meal.ratingRange.contains(rating) else { throw ValidationFailure("the rating must be from 0 to 5") }
            try list.update(at: at) { $0.rating = rating }
            try await share()
            print("Rated \(number). \(list.meals[at].name)  \(stars(rating))")
        }
    }
}
