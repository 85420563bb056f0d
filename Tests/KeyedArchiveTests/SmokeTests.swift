import Foundation
import Testing
@testable import KeyedArchive

struct SmokeTests {
    @Test func itemsRoundTrip() throws {
        let items = [Item(name: "Rusty Spork", serialNumber: nil, valueInDollars: 5), Item(name: "Mac", serialNumber: "ABC", valueInDollars: 900)]
        let data = try KeyedArchiver.archivedData(withRootObject: items)
        print(try PropertyListReader().read(data))
        let back = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Item.self, from: data)
        #expect(back == items)
    }
}
