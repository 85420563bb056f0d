// Keeps items in an item store and their photos in a blob store, and a few
// thumbnails in a memory cache that drops the least recently used first.
import Foundation
import Keepsake

struct Item: KeyedSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var name: String
    var photoKey = UUID().uuidString

    init(name: String) { self.name = name }
    func encode(with coder: KeyedEncoder) {
        coder.encode(name, forKey: "name")
        coder.encode(photoKey, forKey: "photoKey")
    }
    init(coder: KeyedDecoder) throws {
        name = try coder.decode(String.self, forKey: "name")
        photoKey = try coder.decode(String.self, forKey: "photoKey")
    }
}

let container = try AppContainer.temporary(identifier: "com.example.Stores")
defer { try? container.destroy() }

let itemStore = try ItemStore<Item>(container: container)  // Documents/items.archive
let imageStore = try BlobStore(container: container)  // Documents/images/, one file per key
let bike = Item(name: "Bike")
itemStore.add(bike)  // in memory at once, its journal record queued
try await itemStore.flush()  // durable: the record is written and fsynced
try itemStore.save()  // the whole archive, durably; the journal starts afresh

let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0])  // the first bytes of a JPEG
try imageStore.set(jpeg, forKey: bike.photoKey)  // durable when it returns
let kind = try imageStore.imageKind(forKey: bike.photoKey)  // from the stored bytes
print(itemStore.allItems.map(\.name), kind ?? .unknown)  // ["Bike"] jpeg

let thumbnails = MemoryCache<String, Data>(countLimit: 2)  // NSCache, with a definite order
for key in ["a", "b", "c"] { thumbnails.setObject(jpeg, forKey: key) }
print(thumbnails.keysByRecentUse)  // ["c", "b"]: "a" was evicted
