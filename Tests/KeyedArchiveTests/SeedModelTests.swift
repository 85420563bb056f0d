import Foundation
import Testing

@testable import KeyedArchive

/// The seeds' models, written in the seeds' style, round-trip; so do the patterns the
/// books rely on: subclass chaining, shared references, parent pointers.
struct SeedModelTests {
    @Test(arguments: [PropertyListFormat.binary, .xml])
    func itemsRoundTrip(_ format: PropertyListFormat) throws {
        // ItemStore.saveChanges / init(), with Data in place of the file.
        let allItems = Item.samples(25) + [Item(name: "Spork ✨", serialNumber: "X", valueInDollars: -3)]
        let data = try KeyedArchiver.archivedData(withRootObject: allItems, format: format)
        #expect(PropertyListFormat.detect([UInt8](data)) == format)
        let archivedItems = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Item.self, from: data)
        #expect(archivedItems == allItems)
    }

    @Test func itemsRoundTripThroughTheLegacyInsecureCall() throws {
        // `NSKeyedUnarchiver.unarchiveObject(withFile:) as? [Item]`, classes found by name.
        let allItems = Item.samples(5)
        let data = try KeyedArchiver.archivedData(withRootObject: allItems)
        #expect(try KeyedUnarchiver.unarchiveObject(with: data) as? [Item] == allItems)
    }

    @Test func mealsRoundTripWithAndWithoutPhoto() throws {
        let meals = [
            Meal(name: "Caprese Salad", photo: Data([0xFF, 0xD8, 0xFF, 0xE0]), rating: 4)!,
            Meal(name: "Chicken and Potatoes", photo: nil, rating: 5)!,
        ]
        let data = try KeyedArchiver.archivedData(withRootObject: meals)
        #expect(try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Meal.self, from: data) == meals)
    }

    @Test func mealWithoutNameIsATypedError() throws {
        // A Meal archived without a name: init?(coder:) returns nil, as the lesson's guard does.
        let data = try KeyedArchiver.archivedData(withRootObject: [Point(x: 0, y: 0)])
        let renamed = try Self.renamingClass(in: data, from: Point.archiveClassName, to: Meal.archiveClassName)
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Meal.self, from: renamed)
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.className == Meal.archiveClassName)
        #expect(error?.description.contains("returned nil") == true)
        #expect(error?.keyPath == "root[0]")
    }

    @Test func personRoundTripsAlone() throws {
        let moidata = try KeyedArchiver.archivedData(withRootObject: Person(firstName: "Matt", lastName: "Neuburg"))
        let person = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Person.self, from: moidata))
        #expect(person.description == "Matt Neuburg")
    }

    @Test func subclassesChainToSuperAndKeepTheirType() throws {
        let assets: [Asset] = [Asset(label: "box"), Camera(label: "cam", megapixels: 12.5)]
        let data = try KeyedArchiver.archivedData(withRootObject: assets)

        let tree = try PropertyListReader().read(data)
        let classNames = tree["$objects"]?.arrayValue?.compactMap {
            $0["$classes"]?.arrayValue?.compactMap(\.stringValue)
        }
        #expect(classNames?.contains([Camera.archiveClassName, Asset.archiveClassName, "NSObject"]) == true)

        let decoder = try KeyedDecoder(forReadingFrom: data)
        decoder.allowClasses([Camera.self])
        let decoded = try decoder.decode([Asset].self, forKey: "root")
        #expect(decoded.map(\.label) == ["box", "cam"])
        #expect(type(of: decoded[0]) == Asset.self)
        #expect((decoded[1] as? Camera)?.megapixels == 12.5)
    }

    @Test func structsRoundTrip() throws {
        let points = [Point(x: 1, y: 2), Point(x: -3, y: 4)]
        let data = try KeyedArchiver.archivedData(withRootObject: points)
        #expect(try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Point.self, from: data) == points)
    }

    @Test func sharedReferencesStayShared() throws {
        let spork = Item(name: "Spork", serialNumber: nil, valueInDollars: 1)
        let data = try KeyedArchiver.archivedData(withRootObject: [spork, spork, Item.samples(1)[0]])
        let decoded = try #require(try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Item.self, from: data))
        #expect(decoded[0] === decoded[1])
        #expect(decoded[0] !== decoded[2])
    }

    @Test func parentPointersComeBackThroughBackReferences() throws {
        let root = Folder(
            name: "root", children: [Folder(name: "a", children: [Folder(name: "a1")]), Folder(name: "b")])
        let data = try KeyedArchiver.archivedData(withRootObject: root)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Folder.self, from: data))
        #expect(decoded.parent == nil)
        #expect(decoded.children.map(\.name) == ["a", "b"])
        #expect(decoded.children.allSatisfy { $0.parent === decoded })
        #expect(decoded.children[0].children[0].parent === decoded.children[0])
    }

    @Test func conditionalObjectsAreNilUnlessEncodedElsewhere() throws {
        // The subtree alone: its parent is referenced only conditionally, so it stays out.
        let root = Folder(name: "root", children: [Folder(name: "a")])
        let data = try KeyedArchiver.archivedData(withRootObject: root.children[0])
        let tree = try PropertyListReader().read(data)
        let strings = tree["$objects"]?.arrayValue?.compactMap(\.stringValue)
        #expect(strings?.contains("root") == false)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Folder.self, from: data))
        #expect(decoded.name == "a")
        #expect(decoded.parent == nil)
    }

    @Test func classVersionsLetNewCodeReadOldArchives() throws {
        let old = try KeyedArchiver.archivedData(withRootObject: PriceTagV1(price: 7))
        let renamed = try Self.renamingClass(in: old, from: PriceTagV1.archiveClassName, to: PriceTag.archiveClassName)
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: PriceTag.self, from: renamed) == PriceTag(valueInDollars: 7))

        let new = try KeyedArchiver.archivedData(withRootObject: PriceTag(valueInDollars: 9))
        let classEntry = try PropertyListReader().read(new)["$objects"]?.arrayValue?.first { $0["$classname"] != nil }
        #expect(classEntry?["$classversions"] == [2, 0])
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: PriceTag.self, from: new) == PriceTag(valueInDollars: 9))
    }

    /// The archive with class name `old` replaced by `new` (through the property-list
    /// layer, so the test does not depend on the archiver's renaming).
    static func renamingClass(in data: Data, from old: String, to new: String) throws -> Data {
        guard case .dictionary(var archive) = try PropertyListReader().read(data),
            case .array(var objects)? = archive["$objects"]
        else { throw CocoaError(.coderReadCorrupt) }
        for (index, object) in objects.enumerated() where object["$classname"]?.stringValue == old {
            objects[index] = ["$classname": .string(new), "$classes": [.string(new), "NSObject"]]
        }
        archive["$objects"] = .array(objects)
        return Data(try PropertyListWriter.binary.write(.dictionary(archive)))
    }
}
