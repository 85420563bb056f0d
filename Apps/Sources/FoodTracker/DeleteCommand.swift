import AppSandbox
import ArgumentParser
import FoodTrackerApp
import Foundation

extension FoodTracker {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a meal.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's number, as listed.") var number: Int

        @MainActor func run() async throws {
            let (list, share) = try await options.mealList()
            let meal = try list.remove(at: try index(of: number, in: list))
            try await share()
            print("Deleted \(meal.name)")
        }
    }
}
