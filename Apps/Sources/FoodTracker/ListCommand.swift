import AppSandbox
import ArgumentParser
import FoodTrackerApp
import Foundation

extension FoodTracker {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the meals.")
        @OptionGroup var options: ContainerOptions

        @MainActor func run() async throws {
            let list = try await options.mealList().list
            if list.startedWithSamples {
                // The lesson saves only after a change; saving the samples here makes
                // the first run's list the one later runs load.
                try list.saveMeals()
                print("(first run: loaded the sample meals)")
            }
            for (number, meal) in list.meals.enumerated() {
                let photo = meal.photo.map { " [photo \($0.count) bytes]" } ?? ""
                print("\(number + 1). \(meal.name)  \(stars(meal.rating))\(photo)")
            }
            if list.meals.isEmpty { print("No meals.") }
        }
    }
}
