import AppSandbox
import ArgumentParser
import FoodTrackerApp
import Foundation

/// `foodtracker`: the FoodTracker lesson's meal list on the command line.
@main
struct FoodTracker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foodtracker",
        abstract: "Keep a list of meals with photos and 0–5 star ratings.",
        discussion: "The first run starts with three sample meals; every change is saved at once.",
        subcommands: [List.self, Add.self, Edit.self, Rate.self, Delete.self, Photo.self],
        defaultSubcommand: List.self)
}

struct ContainerOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Folder holding the app's container. Default: $KEEPSAKE_CONTAINERS, else $XDG_DATA_HOME/keepsake/containers.",
        valueName: "DIR"))
    var container: String?

    func mealList() throws -> MealList {
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
func index(of number: Int, in list: MealList) throws -> Int {
    guard (1...max(list.meals.count, 1)).contains(number), number <= list.meals.count else {
        throw ValidationFailure("there is no meal number \(number); there are \(list.meals.count)")
    }
    return number - 1
}

extension FoodTracker {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the meals.")
        @OptionGroup var options: ContainerOptions

        func run() throws {
            let list = try options.mealList()
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

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a meal.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's name.") var name: String
        @Option(help: "Rating from 0 to 5.") var rating = 0
        @Option(help: "A photo file (JPEG or PNG).") var photo: String?

        func run() throws {
            let list = try options.mealList()
            guard let meal = Meal(name: name, photo: try photo.map(readPhoto), rating: rating) else {
                throw ValidationFailure("a meal needs a name and a rating from 0 to 5")
            }
            try list.add(meal)
            print("Added \(list.meals.count). \(meal.name)  \(stars(meal.rating))")
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a meal, rate it, or change its photo.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's number, as listed.") var number: Int
        @Option(help: "New name.") var name: String?
        @Option(help: "New rating from 0 to 5.") var rating: Int?
        @Option(help: "New photo file.") var photo: String?
        @Flag(help: "Remove the photo.") var noPhoto = false

        func run() throws {
            let list = try options.mealList()
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
            print("Saved \(number). \(list.meals[at].name)  \(stars(list.meals[at].rating))")
        }
    }

    struct Rate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rate a meal from 0 to 5.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's number, as listed.") var number: Int
        @Argument(help: "Rating from 0 to 5.") var rating: Int

        func run() throws {
            let list = try options.mealList()
            let at = try index(of: number, in: list)
            guard Meal.ratingRange.contains(rating) else { throw ValidationFailure("the rating must be from 0 to 5") }
            try list.update(at: at) { $0.rating = rating }
            print("Rated \(number). \(list.meals[at].name)  \(stars(rating))")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a meal.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's number, as listed.") var number: Int

        func run() throws {
            let list = try options.mealList()
            let meal = try list.remove(at: try index(of: number, in: list))
            print("Deleted \(meal.name)")
        }
    }

    struct Photo: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a meal's photo to a file.")
        @OptionGroup var options: ContainerOptions
        @Argument(help: "The meal's number, as listed.") var number: Int
        @Option(name: .shortAndLong, help: "Where to write the photo.") var output: String

        func run() throws {
            let list = try options.mealList()
            guard let photo = list.meals[try index(of: number, in: list)].photo else {
                throw ValidationFailure("meal \(number) has no photo")
            }
            try FileSystem.default.write(photo, to: URL(fileURLWithPath: output))
        }
    }
}
