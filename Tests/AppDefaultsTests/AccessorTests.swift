import AppDefaults
import Foundation
import PropertyList
import Testing

/// Typed accessors with Apple's coercions, typed keys and Codable values.
@Suite("Accessors")
struct AccessorTests {
    // Declared first so that it goes first: a Defaults saves what is left when it is
    // released, which would make the fixture's folder again after its removal.
    let defaults: Defaults
    let fixture: TestContainers

    init() throws {
        fixture = TestContainers()
        defaults = try fixture.defaults()
    }

    @Test("Every setter stores the property-list type Apple stores, and every getter reads it back")
    func roundTripsEveryType() throws {
        let date = Date(timeIntervalSinceReferenceDate: 812_345_678.25)
        defaults.set("Rusty Spork", forKey: "string")
        defaults.set(42, forKey: "int")
        defaults.set(2.5, forKey: "double")
        defaults.set(Float(1.5), forKey: "float")
        defaults.set(true, forKey: "bool")
        defaults.set(URL(string: "https://example.com/a?b=c")!, forKey: "url")
        defaults.set(URL(fileURLWithPath: "/var/tmp/photo.jpg"), forKey: "fileURL")
        defaults.set(date, forKey: "date")
        defaults.set(Data([1, 2, 3]), forKey: "data")
        try defaults.set(["a", "b"], forKey: "array")
        try defaults.set(["name": "Spork", "value": 42, "tags": ["x"]] as [String: Any], forKey: "dictionary")
        try defaults.set(UInt64.max, forKey: "huge")

        #expect(defaults.string(forKey: "string") == "Rusty Spork")
        #expect(defaults.integer(forKey: "int") == 42)
        #expect(defaults.double(forKey: "double") == 2.5)
        #expect(defaults.float(forKey: "float") == 1.5)
        #expect(defaults.bool(forKey: "bool"))
        #expect(defaults.url(forKey: "url") == URL(string: "https://example.com/a?b=c"))
        #expect(defaults.url(forKey: "fileURL") == URL(fileURLWithPath: "/var/tmp/photo.jpg"))
        #expect(defaults.object(forKey: "date") as? Date == date)
        #expect(defaults.data(forKey: "data") == Data([1, 2, 3]))
        #expect(defaults.array(forKey: "array") as? [String] == ["a", "b"])
        #expect(defaults.stringArray(forKey: "array") == ["a", "b"])
        let dictionary = try #require(defaults.dictionary(forKey: "dictionary"))
        #expect(dictionary["name"] as? String == "Spork" && dictionary["value"] as? Int == 42)
        #expect(dictionary["tags"] as? [String] == ["x"])
        #expect(defaults["huge"] == .unsignedInteger(.max))

        // The types in the file are those Apple's UserDefaults writes.
        try defaults.flush()
        let file = try #require(try fixture.file("com.example.Homepwner")?.dictionaryValue)
        #expect(file["int"] == .integer(42))
        #expect(file["bool"] == .bool(true))
        #expect(file["float"].map { if case .float = $0 { true } else { false } } == true)
        #expect(file["date"] == .date(date))
        #expect(file["fileURL"] == "/var/tmp/photo.jpg")
    }

    @Test("Absent keys read as Apple's zero values")
    func absentKeys() {
        #expect(defaults.string(forKey: "none") == nil)
        #expect(defaults.integer(forKey: "none") == 0)
        #expect(defaults.double(forKey: "none") == 0)
        #expect(defaults.float(forKey: "none") == 0)
        #expect(defaults.bool(forKey: "none") == false)
        #expect(defaults.array(forKey: "none") == nil)
        #expect(defaults.stringArray(forKey: "none") == nil)
        #expect(defaults.dictionary(forKey: "none") == nil)
        #expect(defaults.data(forKey: "none") == nil)
        #expect(defaults.url(forKey: "none") == nil)
        #expect(defaults.object(forKey: "none") == nil)
    }

    @Test(
        "Booleans read from strings and numbers as NSString.boolValue and NSNumber do",
        arguments: [
            ("YES", true), ("yes", true), ("true", true), ("T", true), ("1", true), ("007", true), ("  +9", true),
            ("NO", false), ("no", false), ("false", false), ("0", false), ("", false), ("000", false), ("maybe", false),
        ] as [(String, Bool)]
    )
    func boolCoercion(text: String, expected: Bool) {
        defaults.set(text, forKey: "flag")
        #expect(defaults.bool(forKey: "flag") == expected)
    }

    @Test("Integers and reals read from strings as NSString does; numbers convert among themselves")
    func numberCoercions() throws {
        let cases: [(PropertyListValue, Int, Double, Bool, String?)] = [
            ("42", 42, 42, true, "42"),
            ("  -17apples", -17, -17, true, "  -17apples"),  // boolValue skips the sign
            ("3.75", 3, 3.75, true, "3.75"),
            ("1e3", 1, 1000, true, "1e3"),
            ("abc", 0, 0, false, "abc"),
            (.real(3.99), 3, 3.99, true, "3.99"),
            (.real(-2.5), -2, -2.5, true, "-2.5"),
            (.real(4), 4, 4, true, "4"),
            (.bool(true), 1, 1, true, "1"),
            (.bool(false), 0, 0, false, "0"),
            (.integer(7), 7, 7, true, "7"),
            (.integer(0), 0, 0, false, "0"),
            ("99999999999999999999999", Int.max, 1e23, true, "99999999999999999999999"),
            (.date(Date(timeIntervalSinceReferenceDate: 0)), 0, 0, false, nil),
        ]
        for (stored, integer, double, bool, string) in cases {
            defaults["v"] = stored
            #expect(defaults.integer(forKey: "v") == integer, "integer of \(stored)")
            #expect(defaults.double(forKey: "v") == double, "double of \(stored)")
            #expect(defaults.bool(forKey: "v") == bool, "bool of \(stored)")
            #expect(defaults.string(forKey: "v") == string, "string of \(stored)")
        }
    }

    @Test("Getters of the wrong container type return nil rather than a coerced value")
    func containerMismatches() throws {
        defaults.set("text", forKey: "s")
        #expect(defaults.array(forKey: "s") == nil)
        #expect(defaults.dictionary(forKey: "s") == nil)
        #expect(defaults.data(forKey: "s") == nil)
        try defaults.set([1, "two"] as [Any], forKey: "mixed")
        #expect(defaults.stringArray(forKey: "mixed") == ["1", "two"], "numbers read as their text, as Apple's does")
        try defaults.set([Data()] as [Any], forKey: "datas")
        #expect(defaults.stringArray(forKey: "datas") == nil)
        defaults.set(5, forKey: "n")
        #expect(defaults.url(forKey: "n") == nil)
        defaults.set("~/notes.txt", forKey: "tilde")
        #expect(defaults.url(forKey: "tilde")?.isFileURL == true)
        #expect(defaults.url(forKey: "tilde")?.path.hasSuffix("/notes.txt") == true)
    }

    @Test("Setting a value that is not a property list throws a typed error and stores nothing")
    func nonPropertyListValuesThrow() throws {
        struct Item { var name = "Spork" }
        defaults.set("kept", forKey: "item")
        var error = #expect(throws: DefaultsError.self) { try defaults.set(Item(), forKey: "item") }
        #expect(error?.code == .notPropertyList)
        #expect(error?.keyPath == "item")
        error = #expect(throws: DefaultsError.self) {
            try defaults.set(["items": [["name": "a"], ["name": Item()]]] as [String: Any], forKey: "item")
        }
        #expect(error?.keyPath == "item.items[1].name")
        let optional: Int? = nil
        error = #expect(throws: DefaultsError.self) { try defaults.set([optional as Any], forKey: "item") }
        #expect(error?.keyPath == "item[0]")
        error = #expect(throws: DefaultsError.self) { try defaults.register(defaults: ["x": Item()]) }
        #expect(error?.code == .notPropertyList)
        #expect(throws: DefaultsError.self) { try defaults.set([1: "one"], forKey: "item") }
        #expect(defaults.string(forKey: "item") == "kept", "a failed set must leave the old value")
        #expect(defaults["x"] == nil)
    }

    @Test("Setting nil removes the key, as Apple's set(nil) does")
    func settingNilRemoves() throws {
        defaults.set(3, forKey: "n")
        try defaults.set(nil, forKey: "n")
        #expect(defaults.object(forKey: "n") == nil)
        defaults["n"] = 4
        defaults["n"] = nil
        #expect(defaults.object(forKey: "n") == nil)
    }

    struct Layout: Codable, Equatable, Sendable, DefaultsStorable {
        var rows: Int
        var columns: Int
        var title: String?
        var created: Date
    }

    @Test("Typed keys read their default until set, and convert as the accessors do")
    func typedKeys() throws {
        let rows = Defaults.Key("cardMatrixRows", default: 4)
        let name = Defaults.Key("name", default: "Homepwner")
        let ratio = Defaults.Key("ratio", default: 1.5)
        let tags = Defaults.Key("tags", default: [String]())
        let scores = Defaults.Key("scores", default: ["a": 1])
        let enabled = Defaults.Key("enabled", default: false)
        #expect(defaults[rows] == 4 && defaults[name] == "Homepwner" && defaults[ratio] == 1.5)
        defaults[rows] = 6
        defaults[tags] = ["x", "y"]
        defaults[scores] = ["b": 2]
        #expect(defaults[rows] == 6)
        #expect(defaults.integer(forKey: "cardMatrixRows") == 6)
        #expect(defaults[tags] == ["x", "y"])
        #expect(defaults[scores] == ["b": 2])
        defaults.set("YES", forKey: "enabled")
        #expect(defaults[enabled], "typed keys use Apple's coercions")
        defaults.set("twelve", forKey: "tags")
        #expect(defaults[tags] == [], "an unconvertible value reads as the default")
        defaults.removeValue(for: rows)
        #expect(defaults[rows] == 4)
    }

    @Test("An optional key reads nil when absent, and setting nil removes the key")
    func optionalKeys() throws {
        let nickname = Defaults.Key<String?>("nickname", default: nil)
        let fallback = Defaults.Key<Int?>("limit", default: 10)
        #expect(defaults[nickname] == nil)
        #expect(defaults[fallback] == 10)
        defaults[nickname] = "Spork"
        #expect(defaults[nickname] == "Spork")
        #expect(defaults.string(forKey: "nickname") == "Spork")
        defaults[nickname] = nil
        #expect(defaults.object(forKey: "nickname") == nil, "nil must remove the key")
        #expect(defaults.reportedErrors.isEmpty)
        defaults[fallback] = nil
        #expect(defaults[fallback] == 10, "an absent key reads as the default, even for an optional type")
    }

    @Test("Codable values are stored as plist trees and read back; mismatches are typed errors")
    func codableValues() throws {
        let created = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let layout = Layout(rows: 5, columns: 3, title: nil, created: created)
        try defaults.set(encodable: layout, forKey: "layout")
        #expect(try defaults.decodable(Layout.self, forKey: "layout") == layout)
        #expect(
            defaults.dictionary(forKey: "layout")?["rows"] as? Int == 5,
            "stored as a dictionary, as PropertyListEncoder shapes it")
        #expect(defaults.object(forKey: "layout") is [String: Any])

        let key = Defaults.Key("layout2", default: Layout(rows: 4, columns: 3, created: created))
        #expect(defaults[key].rows == 4)
        try defaults.set(layout, for: key)
        #expect(defaults[key] == layout)

        defaults.set("not a layout", forKey: "layout")
        let error = #expect(throws: DefaultsError.self) { try defaults.decodable(Layout.self, forKey: "layout") }
        #expect(error?.code == .decodingFailed)
        #expect(error?.underlyingError is DecodingError)
        #expect(try defaults.decodable(Layout.self, forKey: "absent") == nil)
    }

    struct Unencodable: Encodable, Sendable, DefaultsStorable, Decodable {
        struct Refused: Error {}
        func encode(to encoder: any Encoder) throws { throw Refused() }
    }

    @Test("A Codable value that fails to encode is a typed error; through the subscript it is reported")
    func encodingFailures() throws {
        var error = #expect(throws: DefaultsError.self) { try defaults.set(encodable: Unencodable(), forKey: "u") }
        #expect(error?.code == .encodingFailed)
        #expect(error?.underlyingError is Unencodable.Refused)
        let key = Defaults.Key("u", default: Unencodable())
        error = #expect(throws: DefaultsError.self) { try defaults.set(Unencodable(), for: key) }
        #expect(error?.keyPath == "u")
        defaults[key] = Unencodable()
        #expect(defaults.reportedErrors.map(\.code) == [.encodingFailed])
        #expect(defaults["u"] == nil)
    }

    @Test(
        "Untyped values go through the one plist bridge: a Float stays a Float, a top-level URL is stored, a nested one refused"
    )
    func untypedValuesUseTheSharedBridge() throws {
        try defaults.set(Float(1.5) as Any, forKey: "ratio")
        #expect(defaults.object(forKey: "ratio") as? Float == 1.5, "the same answer as the property-list bridge")
        #expect(defaults.double(forKey: "ratio") == 1.5, "the typed getter still coerces")

        try defaults.set(URL(fileURLWithPath: "/tmp/notes.txt") as Any, forKey: "file")
        #expect(defaults.url(forKey: "file")?.path == "/tmp/notes.txt")

        let error = #expect(throws: DefaultsError.self) {
            try defaults.set(["recent": [URL(fileURLWithPath: "/tmp/a")]] as [String: Any], forKey: "history")
        }
        #expect(error?.code == .notPropertyList)
        #expect(error?.keyPath == "history.recent[0]")
        #expect(defaults.object(forKey: "history") == nil, "nothing is stored when the value is refused")
    }
}
