import Foundation
import PropertyList
import Testing

/// The one `Any` ⇄ ``PropertyListValue`` bridge that defaults, archives and the
/// serialization API share: each case has one answer.
struct BridgingTests {
    @Test func everyIntegerTypeBridgesToAnInteger() throws {
        let values: [Any] = [Int(-5), Int8(-5), Int16(-5), Int32(-5), Int64(-5)]
        for value in values {
            #expect(try PropertyListValue(bridging: value) == .integer(-5), "\(type(of: value))")
        }
        let unsigned: [Any] = [UInt(7), UInt8(7), UInt16(7), UInt32(7), UInt64(7)]
        for value in unsigned {
            #expect(try PropertyListValue(bridging: value) == .integer(7), "\(type(of: value))")
        }
        #expect(try PropertyListValue(bridging: UInt64.max) == .unsignedInteger(.max))
    }

    @Test func scalarsBridgeBackToOneSwiftTypeEach() throws {
        let date = Date(timeIntervalSinceReferenceDate: 600_000_000)
        #expect(PropertyListValue.string("a").bridgedObject as? String == "a")
        #expect(PropertyListValue.integer(42).bridgedObject as? Int == 42)
        #expect(PropertyListValue.unsignedInteger(.max).bridgedObject as? UInt64 == .max)
        #expect(PropertyListValue.real(2.5).bridgedObject as? Double == 2.5)
        // A 4-byte real stays a Float: as a Double it would come back as an 8-byte real.
        #expect(PropertyListValue.float(1.5).bridgedObject as? Float == 1.5)
        #expect(PropertyListValue.float(1.5).bridgedObject as? Double == nil)
        #expect(PropertyListValue.bool(true).bridgedObject as? Bool == true)
        #expect(PropertyListValue.date(date).bridgedObject as? Date == date)
        #expect(PropertyListValue.data(Data([1, 2])).bridgedObject as? Data == Data([1, 2]))
        // A UID is never a bare integer, which would read as a number and archive as one.
        #expect(PropertyListValue.uid(PropertyListUID(3)).bridgedObject as? PropertyListUID == PropertyListUID(3))
        #expect(PropertyListValue.uid(PropertyListUID(3)).bridgedObject as? UInt64 == nil)
    }

    @Test(arguments: [
        PropertyListValue.string("Rusty Spork"), .integer(-1), .unsignedInteger(.max), .real(0.1), .float(0.25),
        .bool(false), .date(Date(timeIntervalSinceReferenceDate: 1)), .data(Data([0xFF])), .uid(PropertyListUID(9)),
        ["items": [1, "two", ["three": 3.0]], "empty": [:]],
    ])
    func everyValueSurvivesARoundTrip(_ value: PropertyListValue) throws {
        #expect(try PropertyListValue(bridging: value.bridgedObject) == value)
    }

    @Test func containersBridgeToFoundationShapes() throws {
        let object: [String: Any] = ["names": ["a", "b"], "count": 2, "nested": ["flag": true]]
        let value = try PropertyListValue(bridging: object)
        #expect(value == ["count": 2, "names": ["a", "b"], "nested": ["flag": true]])
        let back = try #require(value.bridgedObject as? [String: Any])
        #expect(back["names"] as? [String] == ["a", "b"])
        #expect((back["nested"] as? [String: Any])?["flag"] as? Bool == true)
    }

    @Test func dictionariesAreStoredInKeyOrder() throws {
        let value = try PropertyListValue(bridging: ["b": 1, "a": 2, "c": 3] as [String: Any])
        #expect(value.dictionaryValue?.keys == ["a", "b", "c"])
    }

    @Test func theFirstUnsupportedValueIsNamedByItsKeyPath() {
        let object: [String: Any] = ["items": [1, ["name": URL(fileURLWithPath: "/tmp")]]]
        let error = #expect(throws: PropertyListError.self) { try PropertyListValue(bridging: object) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath == "items[1].name")
        #expect(error?.message.contains("URL") == true)
    }

    @Test func nilInsideAContainerIsRefused() {
        let object: [Any] = ["a", Optional<String>.none as Any]
        let error = #expect(throws: PropertyListError.self) { try PropertyListValue(bridging: object, keyPath: "list") }
        #expect(error?.keyPath == "list[1]")
        #expect(error?.message.contains("nil") == true)
    }
}

/// Plain Swift values written as property lists and read back as `Any`, as
/// `PropertyListSerialization` does, checked against Foundation's own.
struct SerializationTests {
    @Test(arguments: [PropertyListFormat.binary, .xml, .json])
    func plainSwiftValuesRoundTrip(_ format: PropertyListFormat) throws {
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let object: [String: Any] = [
            "names": ["Manny", "Moe", "Jack"], "count": 3, "ratio": 0.5, "flag": true,
            "nested": ["inner": [1, 2, 3]],
        ]
        var writer = PropertyListWriter(format: format)
        writer.jsonOptions = JSONWritingOptions(data: .base64, date: .iso8601)
        let data = try writer.data(fromPropertyList: object)
        let (value, readFormat) = try PropertyListReader().propertyList(from: data)
        #expect(readFormat == format)
        let dictionary = try #require(value as? [String: Any])
        #expect(dictionary["names"] as? [String] == ["Manny", "Moe", "Jack"])
        #expect(dictionary["count"] as? Int == 3)
        #expect(dictionary["ratio"] as? Double == 0.5)
        #expect(dictionary["flag"] as? Bool == true)
        #expect((dictionary["nested"] as? [String: Any])?["inner"] as? [Int] == [1, 2, 3])
        if format != .json {
            let withDate = try writer.data(fromPropertyList: ["when": date, "bytes": Data([1, 2])])
            let back = try #require(try PropertyListReader().propertyList(from: withDate).value as? [String: Any])
            #expect(back["when"] as? Date == date)
            #expect(back["bytes"] as? Data == Data([1, 2]))
        }
    }

    @Test func foundationReadsWhatWeWriteFromPlainValues() throws {
        let data = try PropertyListWriter.binary.data(fromPropertyList: ["Manny", "Moe", "Jack"])
        let theirs = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        #expect(theirs as? [String] == ["Manny", "Moe", "Jack"])
        let xml = try PropertyListSerialization.data(
            fromPropertyList: ["a": 1, "b": ["c"]] as [String: Any], format: .xml, options: 0)
        let ours = try #require(try PropertyListReader().propertyList(from: xml).value as? [String: Any])
        #expect(ours["a"] as? Int == 1)
        #expect(ours["b"] as? [String] == ["c"])
    }

    @Test func aValueThatIsNotAPropertyListIsRefusedWithItsPath() {
        let error = #expect(throws: PropertyListError.self) {
            try PropertyListWriter.xml.data(fromPropertyList: ["items": [NSObject()]])
        }
        #expect(error?.keyPath == "items[0]")
    }
}

extension BridgingTests {
    @Test func nestingPastTheDepthLimitIsRefusedNotOverflowed() {
        var deep: Any = "leaf"
        for _ in 0..<5_000 { deep = ["next": deep] as [String: Any] }
        var deepArray: Any = "leaf"
        for _ in 0..<5_000 { deepArray = [deepArray] }
        #expect(throws: PropertyListError.self) { try PropertyListValue(bridging: deepArray) }
        let error = #expect(throws: PropertyListError.self) { try PropertyListValue(bridging: deep) }
        #expect(error?.code == .limitExceeded)
        var shallow: Any = "leaf"
        for _ in 0..<PropertyListLimits.default.maxDepth { shallow = [shallow] }
        #expect(throws: Never.self) { try PropertyListValue(bridging: shallow) }
    }
}
