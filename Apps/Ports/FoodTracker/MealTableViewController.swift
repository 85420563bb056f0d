//
//  MealTableViewController.swift
//  FoodTracker
//
//  The lesson's table view controller: what it does with the meal list.
//

import Foundation
import Keepsake

class MealTableViewController {
    
    //MARK: Properties
    
    var meals = [Meal]()
    
    func viewDidLoad() {
        // The view and its edit button are UIKit's; the rest is the lesson's.
        
        // Load any saved meals, otherwise load sample data.
        if let savedMeals = loadMeals() {
            meals += savedMeals
        }
        else {
            // Load the sample data.
            loadSampleMeals()
        }
    }
    
    //MARK: Actions
    
    func unwindToMealList(meal: Meal?) {
        if let meal = meal {
            // Add a new meal.
            meals.append(meal)
            
            // Save the meals.
            saveMeals()
        }
    }
    
    //MARK: Private Methods
    
    private func loadSampleMeals() {
        
        guard let meal1 = Meal(name: "Caprese Salad", photo: nil, rating: 4) else {
            fatalError("Unable to instantiate meal1")
        }
        
        guard let meal2 = Meal(name: "Chicken and Potatoes", photo: nil, rating: 5) else {
            fatalError("Unable to instantiate meal2")
        }
        
        guard let meal3 = Meal(name: "Pasta with Meatballs", photo: nil, rating: 3) else {
            fatalError("Unable to instantiate meal2")
        }
        
        meals += [meal1, meal2, meal3]
    }
    
    private func saveMeals() {
        let isSuccessfulSave = KeyedArchiver.archiveRootObject(meals, toFile: Meal.ArchiveURL.path)
        if isSuccessfulSave {
            os_log("Meals successfully saved.", log: OSLog.default, type: .debug)
        } else {
            os_log("Failed to save meals...", log: OSLog.default, type: .error)
        }
    }
    
    private func loadMeals() -> [Meal]?  {
        return KeyedUnarchiver.unarchiveObject(withFile: Meal.ArchiveURL.path) as? [Meal]
    }
}
