import AppSandbox
import ArgumentParser
import FoodTrackerApp
import Foundation

extension FoodTracker {
    struct Photo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a meal's photo to a file.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's number, as listed.") var number: Int
        @Option(name: .shortAndLong, help: "Where to write the photo.") var output: String

        @MainActor func run() async throws {
            let list = try await options.mealList().list
            guard let photo = list.meals[try index(of: number, in: list)].photo else {
                throw ValidationFailure("meal \(number) has no photo")
            }
            try FileSystem.default.write(photo, to: URL(fileURLWithPath: output))
        }
    }
}
