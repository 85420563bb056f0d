// Stands in for UIKit, which runs the lesson's controller on iOS: loads the view, then
// `FoodTrackerPort NAME RATING` adds a meal as the meal editor's unwind segue does, and
// the list is printed as the table shows it. Not part of the lesson, so not counted.
import Foundation

let controller = MealTableViewController()
controller.viewDidLoad()
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 2, let rating = Int(arguments[1]) {
    controller.unwindToMealList(meal: Meal(name: arguments[0], photo: nil, rating: rating))
}
for meal in controller.meals {
    print("\(meal.name): \(meal.rating)")
}
