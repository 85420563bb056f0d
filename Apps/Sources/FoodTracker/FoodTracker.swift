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

    @MainActor func mealList() throws -> MealList {
        let appContainer = try AppContainer(
            identifier: MealList.identifier,
            containersDirectory: container.map { URL(fileURLWithPath: $0, isDirectory: true) })
        do {
            return try MealList(container: appContainer)
        } catch {
            throw ValidationFailure("the saved meals could not be read (the file is kept as it is): \(error)")
        }
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
