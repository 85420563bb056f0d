//
//  ImageStore.swift
//  Homepwner
//
//  Big Nerd Ranch, iOS Programming, chapter 16 "Saving, Loading, and Application
//  States": the chapter's listings, in the class the earlier chapters built.
//

import Foundation
import Keepsake

class ImageStore {

    let cache = MemoryCache<String, Data>()

    func imageURL(forKey key: String) -> URL {

        let documentsDirectories = AppContainer.main.urls(for: .documentDirectory, in: .userDomainMask)
        let documentDirectory = documentsDirectories.first!

        return documentDirectory.appendingPathComponent(key)
    }

    func setImage(_ image: Data, forKey key: String) {
        cache.setObject(image, forKey: key as NSString)

        // Create full URL for image
        let url = imageURL(forKey: key)

        // Turn image into JPEG data
        if let data = UIImageJPEGRepresentation(image, 0.5) {
            // Write it to full URL
            let _ = try? FileSystem.default.write(data, to: url)
        }
    }

    func image(forKey key: String) -> Data? {
        if let existingImage = cache.object(forKey: key as NSString) {
            return existingImage
        }

        let url = imageURL(forKey: key)
        guard let imageFromDisk = try? FileSystem.default.contents(of: url) else {
            return nil
        }

        cache.setObject(imageFromDisk, forKey: key as NSString)
        return imageFromDisk
    }

    func deleteImage(forKey key: String) {
        cache.removeObject(forKey: key as NSString)

        let url = imageURL(forKey: key)
        do {
            try FileManager.default.removeItem(at: url)
        } catch let deleteError {
            print("Error removing the image from disk: \(deleteError)")
        }
    }
}
