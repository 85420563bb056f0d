#if Database
import Foundation
import Testing

@testable import HomepwnerApp

/// The merge kept in the agreement file, done again at start only when the container
/// never received it.
@Suite struct AgreementFileTests {
    let bike = Item(name: "Bike", serialNumber: nil, valueInDollars: 300, itemKey: "bike")
    let lamp = Item(name: "Lamp", serialNumber: nil, valueInDollars: 20, itemKey: "lamp")
    let desk = Item(name: "Desk", serialNumber: nil, valueInDollars: 80, itemKey: "desk")

    @Test("A container still as before the merge gets the merge: an edit, a removal, an addition, the order")
    func aMergeTheContainerMissedIsDoneAgain() throws {
        var edited = bike
        edited.valueInDollars = 500
        let before = [bike, lamp]
        let after = [desk, edited]
        let file = try AgreementFile(agreement: Data("agreed".utf8), merging: before, into: after)
        let reread = AgreementFile(try file.encoded())
        #expect(reread.agreement == Data("agreed".utf8))
        #expect(try reread.redo(on: before) == after)
    }

    @Test("A container that has the merge, or changed the merged items since, is left alone")
    func aMergeTheContainerHasIsNotRedone() throws {
        var edited = bike
        edited.valueInDollars = 500
        let file = try AgreementFile(agreement: Data(), merging: [bike], into: [edited])
        #expect(try file.redo(on: [edited]) == nil)
        var changedHere = edited
        changedHere.name = "Red bike"
        #expect(try file.redo(on: [changedHere, lamp]) == nil, "a change made here after the merge stays")
    }

    @Test("A file of the backend's agreement alone, as earlier versions wrote it, is read as that agreement")
    func anEarlierFileIsTheAgreement() throws {
        let earlier = Data(#"{"base":[],"edits":[]}"#.utf8)
        let file = AgreementFile(earlier)
        #expect(file.agreement == earlier && file.merge.isEmpty)
        #expect(try file.redo(on: [bike]) == nil)
    }
}
#endif
