//
//  ItemStore.swift
//  Homepwner
//
//  Big Nerd Ranch, iOS Programming, chapter 16 "Saving, Loading, and Application
//  States": the chapter's listings.
//

import Foundation
import Keepsake

class ItemStore {

    var allItems = [Item]()
    let itemArchiveURL: URL = {
        let documentsDirectories = AppContainer.main.urls(for: .documentDirectory, in: .userDomainMask)
        let documentDirectory = documentsDirectories.first!
        return documentDirectory.appendingPathComponent("items.archive")
    }()

    init() {
        if let archivedItems = KeyedUnarchiver.unarchiveObject(withFile: itemArchiveURL.path) as? [Item] {
            allItems = archivedItems
        }
    }

    func saveChanges() -> Bool {
        print("Saving items to: \(itemArchiveURL.path)")
        return KeyedArchiver.archiveRootObject(allItems, toFile: itemArchiveURL.path)
    }
}
