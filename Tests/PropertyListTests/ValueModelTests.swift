import Foundation
import Testing

@testable import PropertyList

struct ValueModelTests {
    @Test func integersCompareNumericallyAcrossSignedness() {
        #expect(PropertyListValue.unsignedInteger(5) == .integer(5))
        #expect(PropertyListValue.unsignedInteger(UInt64.max) != .integer(-1))
        #expect(PropertyListValue(integer: UInt64.max) == .unsignedInteger(UInt64.max))
        #expect(PropertyListValue(integer: UInt64(7)) == .integer(7))
        #expect(Set<PropertyListValue>([.unsignedInteger(5), .integer(5)]).count == 1)
    }

    @Test func realsCompareAsNumbersAndNaNEqualsItself() {
        #expect(PropertyListValue.float(1.5) == .real(1.5))
        #expect(PropertyListValue.float(0.1) != .real(0.1))
        #expect(PropertyListValue.real(.nan) == .real(.nan))
        #expect(PropertyListValue.real(1) != .integer(1))
    }

    @Test func dictionariesKeepOrderButCompareWithoutIt() {
        let ab: PropertyListValue = ["a": 1, "b": 2]
        let ba: PropertyListValue = ["b": 2, "a": 1]
        #expect(ab == ba)
        #expect(ab.hashValue == ba.hashValue)
        #expect(ab.dictionaryValue?.keys == ["a", "b"])
        #expect(ab != ["a": 1, "b": 3])
    }

    @Test func largeDictionariesIndexAndRemoveCorrectly() {
        var dictionary = PropertyListDictionary()
        for i in 0..<100 { dictionary["k\(i)"] = .integer(Int64(i)) }
        dictionary["k5"] = "replaced"
        #expect(dictionary.count == 100)
        #expect(dictionary["k5"] == "replaced")
        #expect(dictionary.keys[5] == "k5")
        dictionary["k50"] = nil
        #expect(dictionary.count == 99)
        #expect(dictionary["k51"] == .integer(51))
        #expect(dictionary["k50"] == nil)
    }

    @Test func errorsMatchByCode() {
        let error: any Error = PropertyListError(.truncated, "cut short", offset: 9)
        var matched = false
        do { throw error } catch .truncated { matched = true } catch {}
        #expect(matched)
        #expect("\(error)".contains("offset 9"))
    }
}

/// Dates a binary plist can hold but no calendar can name (NaN, infinities, far
/// beyond year 9999) must never trap a writer or the description.
struct UnnamedDateTests {
    static let dates: [Double] = [.nan, .infinity, -.infinity, 1e300]

    @Test(arguments: dates)
    func textWritersRefuseThemWithATypedError(_ seconds: Double) throws {
        let value: PropertyListValue = ["when": .date(Date(timeIntervalSinceReferenceDate: seconds))]
        let xml = #expect(throws: PropertyListError.self) { try PropertyListWriter.xml.write(value) }
        #expect(xml?.code == .unsupportedValue)
        let json = PropertyListWriter(format: .json, jsonOptions: JSONWritingOptions(date: .iso8601))
        let error = #expect(throws: PropertyListError.self) { try json.write(value) }
        #expect(error?.code == .unsupportedValue)
    }

    @Test(arguments: dates)
    func binaryKeepsThemAndDescriptionShowsThem(_ seconds: Double) throws {
        let value: PropertyListValue = .date(Date(timeIntervalSinceReferenceDate: seconds))
        #expect(try PropertyListReader().read(PropertyListWriter.binary.write(value)) == value)
        #expect(value.description.contains("seconds since 2001"))
    }
}
