import AppSandbox
import ArgumentParser
import FoodTrackerApp
import Foundation

/// `foodtracker`: the FoodTracker lesson's meal list on the command line.
@main
struct FoodTracker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foodtracker",
        abstract: "Keep a list of meals with photos and 0–5 star ratings.",
        discussion: "The first run starts with three sample meals; every change is saved at once.",
        subcommands: [List.self, Add.self, Edit.self, Rate.self, Delete.self, Photo.self],
        defaultSubcommand: List.self)
}

struct ContainerOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Folder holding the app's container. Default: $KEEPSAKE_CONTAINERS, else $XDG_DATA_HOME/keepsake/containers.",
            valueName: "DIR"))
    var container: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A PostgreSQL database to share the meals through. Default: $FOODTRACKER_DATABASE_URL, else none.",
            valueName: "URL"))
    var database: String?

    /// The meals, in step with the database first when there is one (which then
    /// holds them: no samples), and what shares the command's change afterwards.
    @MainActor func mealList() async throws -> (list: MealList, share: () async throws -> Void) {
        let url =
            database
            ?? ProcessInfo.processInfo.environment["FOODTRACKER_DATABASE_URL"].flatMap {
                $0.isEmpty ? nil : $0
            }
        let appContainer = try AppContainer(
            identifier: MealList.identifier,
            containersDirectory: container.map { URL(fileURLWithPath: $0, isDirectory: true) })
        let list: MealList
        do {
            list = try MealList(container: appContainer, withSamples: url == nil)
        } catch {
            throw ValidationFailure("the saved meals could not be read (the file is kept as it is): \(error)")
        }
        guard let url else { return (list, {}) }
        return (list, try await Self.share(list, through: url))
    }
}

/// A failure reported on standard error with exit code 1.
struct ValidationFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func stars(_ rating: Int) -> String {
    String(repeating: "★", count: rating) + String(repeating: "☆", count: Meal.ratingRange.upperBound - rating)
}

func readPhoto(_ path: String) throws -> Data {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationFailure("cannot read the photo \(path)")
    }
    return data
}

/// Meal numbers are 1-based, as listed.
@MainActor func index(of number: Int, in list: MealList) throws -> Int {
    guard (1...max(list.meals.count, 1)).contains(number), number <= list.meals.count else {
        throw ValidationFailure("there is no meal number \(number); there are \(list.meals.count)")
    }
    return number - 1
}
