import Foundation
import Testing

@testable import KeyedArchive

/// The coder calls: every type's encode and decode, Foundation's non-throwing spellings
/// and their recorded errors, the Swift throwing calls and their key paths.
struct DecoderAPITests {
    struct Everything: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        init() {}
        func encode(with coder: KeyedEncoder) {
            coder.encode("text", forKey: "string")
            coder.encode(-42, forKey: "int")
            coder.encode(Int8.min, forKey: "int8")
            coder.encode(Int16.max, forKey: "int16")
            coder.encode(Int32.min, forKey: "int32")
            coder.encode(Int64.min, forKey: "int64")
            coder.encode(UInt8.max, forKey: "uint8")
            coder.encode(UInt16.max, forKey: "uint16")
            coder.encode(UInt32.max, forKey: "uint32")
            coder.encode(UInt64.max, forKey: "uint64")
            coder.encode(UInt(7), forKey: "uint")
            coder.encode(2.5, forKey: "double")
            coder.encode(Float(1.25), forKey: "float")
            coder.encode(true, forKey: "bool")
            coder.encode(Date(timeIntervalSinceReferenceDate: 1.5), forKey: "date")
            coder.encode(Data([1, 2]), forKey: "data")
            coder.encode(URL(string: "https://example.com/x")!, forKey: "url")
            coder.encode(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, forKey: "uuid")
            coder.encode([1, 2, 3], forKey: "array")
            coder.encode(["a": "b"], forKey: "dictionary")
            coder.encode(Set([1.5]), forKey: "set")
            coder.encode([Point(x: 1, y: 2)], forKey: "points")
            coder.encode(nil as Date?, forKey: "nothing")
            coder.encode(5 as Int?, forKey: "boxed")
        }

        init(coder: KeyedDecoder) throws {
            #expect(try coder.decode(String.self, forKey: "string") == "text")
            #expect(coder.decodeInteger(forKey: "int") == -42)
            #expect(try coder.decode(Int8.self, forKey: "int8") == Int8.min)
            #expect(try coder.decode(Int16.self, forKey: "int16") == Int16.max)
            #expect(coder.decodeInt32(forKey: "int32") == Int32.min)
            #expect(coder.decodeInt64(forKey: "int64") == Int64.min)
            #expect(try coder.decode(UInt8.self, forKey: "uint8") == UInt8.max)
            #expect(try coder.decode(UInt16.self, forKey: "uint16") == UInt16.max)
            #expect(try coder.decode(UInt32.self, forKey: "uint32") == UInt32.max)
            #expect(try coder.decode(UInt64.self, forKey: "uint64") == UInt64.max)
            #expect(try coder.decode(UInt.self, forKey: "uint") == 7)
            #expect(coder.decodeDouble(forKey: "double") == 2.5)
            #expect(coder.decodeFloat(forKey: "float") == 1.25)
            #expect(coder.decodeBool(forKey: "bool"))
            #expect(try coder.decode(Date.self, forKey: "date") == Date(timeIntervalSinceReferenceDate: 1.5))
            #expect(try coder.decode(Data.self, forKey: "data") == Data([1, 2]))
            #expect(try coder.decode(URL.self, forKey: "url") == URL(string: "https://example.com/x"))
            #expect(try coder.decode(UUID.self, forKey: "uuid").uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            #expect(try coder.decode([Int].self, forKey: "array") == [1, 2, 3])
            #expect(try coder.decode([String: String].self, forKey: "dictionary") == ["a": "b"])
            #expect(try coder.decode(Set<Double>.self, forKey: "set") == [1.5])
            #expect(try coder.decode([Point].self, forKey: "points") == [Point(x: 1, y: 2)])
            #expect(coder.containsValue(forKey: "nothing"))
            #expect(try coder.decodeIfPresent(Date.self, forKey: "nothing") == nil)
            #expect(coder.decodeObject(forKey: "nothing") == nil)
            #expect(!coder.containsValue(forKey: "absent"))
            #expect(coder.decodeInteger(forKey: "absent") == 0)
            #expect(coder.decodeInteger(forKey: "boxed") == 5)
            // decodeObject gives Swift values for Foundation classes, listed as Foundation
            // wants them (an inline string passes unlisted, with a warning).
            #expect(coder.decodeObject(forKey: "string") as? String == "text")
            #expect(coder.decodeObject(of: [NSArray.self, NSNumber.self], forKey: "array") as? [Int] == [1, 2, 3])
            #expect(
                coder.decodeObject(of: [NSDictionary.self, NSString.self], forKey: "dictionary") as? [String: String]
                    == ["a": "b"])
            #expect(coder.decodeObject(of: [NSSet.self, NSNumber.self], forKey: "set") as? Set<Double> == [1.5])
            // A number encoded under a key is not an object: nil, as in Foundation.
            #expect(coder.decodeObject(forKey: "int") == nil)
            #expect(coder.decodeArrayOfObjects(ofClass: Int.self, forKey: "array") == [1, 2, 3])
            #expect(
                coder.decodeDictionary(withKeysOfClass: String.self, objectsOfClass: String.self, forKey: "dictionary")
                    == ["a": "b"])
            #expect(coder.error == nil)
            #expect(Set(coder.allKeys).count == 24)
        }
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func everyValueTypeRoundTrips(_ format: PropertyListFormat) throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Everything(), format: format)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Everything.self, from: data) != nil)
    }

    @Test func bytesAndDataEntryPointsAgree() throws {
        let bytes = try KeyedArchiver.archivedBytes(withRootObject: ["a", "b"])
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, from: bytes) == ["a", "b"])
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, from: Data(bytes)) == ["a", "b"])
    }

    /// A binary archive's keys, compared in place, match what a text archive's keys,
    /// compared as strings, match: `K` is found by a Kelvin sign (canonically equal in
    /// Swift) in both, and not by another letter.
    @Test func binaryAndXMLArchivesFindKeysAlike() throws {
        var found: [[Int]] = []
        for format in [PropertyListFormat.binary, .xml] {
            let encoder = KeyedEncoder(outputFormat: format)
            encoder.encode(7, forKey: "K")
            encoder.encode(8, forKey: "caf\u{E9}")
            let decoder = try KeyedDecoder(bytes: [UInt8](encoder.encodedData))
            found.append(["K", "\u{212A}", "k", "cafe\u{301}", "caf\u{E9}"].map { decoder.decodeInteger(forKey: $0) })
        }
        #expect(found[0] == [7, 7, 0, 8, 8])
        #expect(found[0] == found[1])
    }

    struct Lenient: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        var name: String?
        var count = 0
        init() {}
        func encode(with coder: KeyedEncoder) {
            coder.encode(Date(timeIntervalSince1970: 0), forKey: "name")
            coder.encode("many", forKey: "count")
        }
        init(coder: KeyedDecoder) throws {
            // Foundation's spellings: the first failure is recorded, later calls give nil/0.
            name = coder.decodeObject(of: String.self, forKey: "name")
            #expect(coder.error?.code == .typeMismatch)
            #expect(coder.error?.keyPath == "name")
            count = coder.decodeInteger(forKey: "count")
        }
    }

    @Test func recordedFailuresAreThrownOnceInitReturns() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [Lenient()])
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Lenient.self, from: data)
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == "root[0].name")
    }

    @Test(arguments: ["int8", "int16", "uint8", "uint32"])
    func integersThatDoNotFitAreTypeMismatches(_ key: String) throws {
        let encoder = KeyedEncoder()
        encoder.encode(Int64.min, forKey: key)
        let decoder = try KeyedDecoder(bytes: encoder.encodedBytes)
        let error = #expect(throws: KeyedArchiveError.self) {
            switch key {
            case "int8": _ = try decoder.decode(Int8.self, forKey: key)
            case "int16": _ = try decoder.decode(Int16.self, forKey: key)
            case "uint8": _ = try decoder.decode(UInt8.self, forKey: key)
            default: _ = try decoder.decode(UInt32.self, forKey: key)
            }
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == key)
    }

    @Test func missingKeysAreReportedWithTheirPath() throws {
        struct Needs: KeyedSecureCoding {
            static var supportsSecureCoding: Bool { true }
            init() {}
            func encode(with coder: KeyedEncoder) {}
            init(coder: KeyedDecoder) throws { _ = try coder.decode(String.self, forKey: "required") }
        }
        let data = try KeyedArchiver.archivedData(withRootObject: ["x": [Needs()]])
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: [String: [Needs]].self, from: data)
        }
        #expect(error?.code == .keyNotFound)
        #expect(error?.keyPath == "root[0][0].required")
    }

    @Test func requestedRootTypeIsChecked() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ["not", "items"])
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: Item.self, from: data)
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == "root")
        #expect(
            try KeyedUnarchiver.unarchivedObject(
                ofClass: [Int].self, from: KeyedArchiver.archivedData(withRootObject: [String]())) == [])
    }

    // Apple: +unarchivedObjectOfClasses:fromData:error: reports a nil root as 4865
    // "requested key: 'root'" (NSCoder's __tryDecodeObjectForKey:error:decodeBlock:);
    // decodeTopLevelObject(forKey:) returns nil without an error.
    @Test func absentOrNilRootIsValueNotFound() throws {
        let encoder = KeyedEncoder()
        encoder.encode(nil as String?, forKey: "root")
        let other = KeyedEncoder()
        other.encode("x", forKey: "elsewhere")
        for data in [try encoder.encodedData, try other.encodedData] {
            let typed = #expect(throws: KeyedArchiveError.self) {
                try KeyedUnarchiver.unarchivedObject(ofClass: String.self, from: data)
            }
            #expect(typed?.code == .keyNotFound)
            #expect(typed?.foundationErrorCode == 4865)
            #expect(typed?.message == "requested key: 'root'")
            let listed = #expect(throws: KeyedArchiveError.self) {
                try KeyedUnarchiver.unarchivedObject(ofClasses: [NSString.self], from: data)
            }
            #expect(listed?.foundationErrorCode == 4865)
            #expect(try KeyedDecoder(forReadingFrom: data).decodeTopLevelObject(forKey: "root") == nil)
        }
    }

    @Test func notAnArchiveIsATypedError() {
        for bytes in [[UInt8](), Array("hello".utf8), (try? PropertyListWriter.binary.write(["a": 1])) ?? []] {
            let error = #expect(throws: KeyedArchiveError.self) { _ = try KeyedDecoder(bytes: bytes) }
            #expect(error?.code == .invalidPropertyList || error?.code == .unsupportedArchiver)
        }
    }
}
