import AppSandbox
import Foundation
import KeyedArchive
import Testing

@testable import AppStores

/// The books' `Item` as the porting table ports `NSObject, NSCoding`: a plain
/// ``KeyedCoding`` class that reads its fields untyped, a date among them, as
/// `aDecoder.decodeObject(forKey:) as! Date` does. Secure decoding would refuse both the
/// class (it does not adopt `KeyedSecureCoding`) and the unlisted `NSDate`.
final class NSCodingItem: KeyedCoding {
    var name: String
    let dateCreated: Date

    init(name: String, dateCreated: Date = Date(timeIntervalSinceReferenceDate: 700_000_000)) {
        self.name = name
        self.dateCreated = dateCreated
    }

    func encode(with aCoder: KeyedEncoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(dateCreated, forKey: "dateCreated")
    }

    required init?(coder aDecoder: KeyedDecoder) {
        guard let name = aDecoder.decodeObject(forKey: "name") as? String,
            let dateCreated = aDecoder.decodeObject(forKey: "dateCreated") as? Date
        else { return nil }
        self.name = name
        self.dateCreated = dateCreated
    }
}

/// A store reads back everything it accepts for writing: a `KeyedCoding` model written
/// through each store's path (archive, journal record, in-memory backend, conflict
/// versions) is read back after a restart. Before, the second launch of a ported app
/// threw `classNotAllowed` from its own file.
@Suite @MainActor struct InsecureModelTests {
    @Test("An NSCoding-style item saved through the container's store is read back by the next store")
    func savedArchiveIsReadBack() throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.insecure-model")
        defer { try? container.destroy() }
        do {
            let store = try ItemStore<NSCodingItem>(container: container)
            store.add(NSCodingItem(name: "Bike"))
            try store.save()
        }
        let reopened = try ItemStore<NSCodingItem>(container: container)
        #expect(reopened.allItems.map(\.name) == ["Bike"])
        #expect(reopened.allItems.first?.dateCreated == Date(timeIntervalSinceReferenceDate: 700_000_000))
    }

    @Test("Every kind of journal record of an NSCoding-style item is replayed by the next store")
    func journalRecordsAreReplayed() async throws {
        let container = try AppContainer.temporary(identifier: "org.keepsake.insecure-model")
        defer { try? container.destroy() }
        do {
            let store = try ItemStore<NSCodingItem>(container: container)
            store.add(NSCodingItem(name: "a"))
            store.add(NSCodingItem(name: "b"))
            #expect(store.update(at: 0) { $0 = NSCodingItem(name: "A") })
            store.allItems.append(NSCodingItem(name: "c"))  // a replacement of every item
            store.insert(NSCodingItem(name: "first"), at: 0)
            try await store.flush()
        }
        let reopened = try ItemStore<NSCodingItem>(container: container)
        #expect(reopened.allItems.map(\.name) == ["first", "A", "b", "c"])
    }

    @Test("A backend store and a conflict's versions decode the NSCoding-style item they archived")
    func backendAndConflictReadBack() throws {
        let backend = try InMemoryBackend(items: [NSCodingItem(name: "Lamp")])
        #expect(try backend.loadItems().map(\.name) == ["Lamp"])
        let store = try ItemStore(backend: backend)
        store.add(NSCodingItem(name: "Desk"))
        try store.save()
        #expect(try ItemStore(backend: backend).allItems.map(\.name) == ["Lamp", "Desk"])

        let archived = try KeyedArchiver.archivedData(withRootObject: NSCodingItem(name: "Chair"))
        let conflict = RecordConflict(
            recordID: "1", ancestor: nil, local: archived, server: archived, serverChangeTag: "t")
        #expect(try conflict.versions(as: NSCodingItem.self).server?.name == "Chair")
    }

    @Test("Data that is not the store's own still gets secure decoding: the typed call refuses the class")
    func secureCallsStillRefuse() throws {
        let archived = try KeyedArchiver.archivedData(withRootObject: [NSCodingItem(name: "Bike")])
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: [NSCodingItem].self, from: archived)
        }
        #expect(error?.code == .classNotAllowed)
        // The store's call reads it, and still checks the root's type.
        #expect(try KeyedUnarchiver.unarchivedStoredObject(ofClass: [NSCodingItem].self, from: archived)?.count == 1)
        #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedStoredObject(ofClass: NSCodingItem.self, from: archived)
        }
    }

    @Test("A secure model is read with secure decoding: an archive of another class is refused")
    func secureModelsKeepSecureDecoding() throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: [Item(name: "Bike")])
        #expect(try KeyedUnarchiver.unarchivedStoredObject(ofClass: [Item].self, from: archive)?.first?.name == "Bike")
        let foreign = try KeyedArchiver.archivedData(withRootObject: [NSCodingItem(name: "Bike")])
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedStoredObject(ofClass: [Item].self, from: foreign)
        }
        #expect(error?.code == .typeMismatch, "an archive of another model is not read as Items")
    }
}
