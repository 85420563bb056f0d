//
//  AppDelegate.swift
//  Homepwner
//
//  Big Nerd Ranch, iOS Programming, chapter 16 "Saving, Loading, and Application
//  States": the chapter's listings.
//

import Foundation
import Keepsake

class AppDelegate: ApplicationDelegate {

    let itemStore = ItemStore()

    func application(_ application: Application, didFinishLaunchingWithOptions launchOptions: [ApplicationLaunchOptionsKey : Any]?) -> Bool {
        // Override point for customization after application launch.

        // Create an ImageStore
        let imageStore = ImageStore()

        // Access the ItemsViewController and set its item store and image store
        let itemsController = ItemsViewController.shown
        itemsController.itemStore = itemStore
        itemsController.imageStore = imageStore

        return true
    }

    func applicationWillResignActive(_ application: Application) {
        print(#function)
    }

    func applicationDidEnterBackground(_ application: Application) {
        print(#function)
        let success = itemStore.saveChanges()
        if success {
            print("Saved all of the Items")
        } else {
            print("Could not save any of the Items")
        }
    }

    func applicationWillEnterForeground(_ application: Application) {
        print(#function)
    }

    func applicationDidBecomeActive(_ application: Application) {
        print(#function)
    }
}
