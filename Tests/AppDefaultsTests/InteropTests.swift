import AppDefaults
import Foundation
import PropertyList
import TestSupport
import Testing

/// Our preferences files are read by Python's plistlib and Foundation's
/// PropertyListSerialization.
@Suite("Interop")
struct InteropTests {

    static let date = Date(timeIntervalSinceReferenceDate: 812_345_678.5)

    /// A preferences file holding every plist type, saved by Defaults.
    static func savedFile(_ fixture: TestContainers) throws -> URL {
        let defaults = try fixture.defaults()
        defaults.set("Rusty Spork ü", forKey: "string")
        defaults.set(-42, forKey: "int")
        defaults.set(2.5, forKey: "real")
        defaults.set(true, forKey: "bool")
        defaults.set(date, forKey: "date")
        defaults.set(Data([0, 1, 254, 255]), forKey: "data")
        try defaults.set(["a", 1] as [Any], forKey: "array")
        try defaults.set(["nested": ["x": false]], forKey: "dict")
        try defaults.flush()
        return try fixture.preferences().appendingPathComponent("com.example.Homepwner.plist")
    }

    @Test(
        "Python's plistlib reads our preferences file with every value intact",
        .enabled(if: Python.executable != nil, "skipped: python3 with plistlib is not installed"))
    func plistlibReadsOurFile() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let file = try Self.savedFile(fixture)
        let script = """
            import datetime, plistlib, sys
            with open(sys.argv[1], "rb") as f:
                assert f.read(8) == b"bplist00", "not a binary plist"
            with open(sys.argv[1], "rb") as f:
                d = plistlib.load(f)
            epoch = datetime.datetime(2001, 1, 1)
            for k in sorted(d):
                v = d[k]
                if isinstance(v, datetime.datetime): v = (v - epoch).total_seconds()
                print(k, type(v).__name__, repr(v))
            """
        let text = try Python.text(script, [file.path])
        #expect(
            text.split(separator: "\n").map(String.init) == [
                "array list ['a', 1]",
                "bool bool True",
                "data bytes b'\\x00\\x01\\xfe\\xff'",
                "date float 812345678.5",
                "dict dict {'nested': {'x': False}}",
                "int int -42",
                "real float 2.5",
                "string str 'Rusty Spork ü'",
            ])
    }

    @Test("Foundation's PropertyListSerialization reads our preferences file with every value intact")
    func foundationReadsOurFile() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let file = try Self.savedFile(fixture)
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object = try PropertyListSerialization.propertyList(
            from: try Data(contentsOf: file), options: [], format: &format)
        #expect(format == .binary)
        let dictionary = try #require(object as? [String: Any])
        #expect(dictionary["string"] as? String == "Rusty Spork ü")
        #expect((dictionary["int"] as? NSNumber)?.intValue == -42)
        #expect((dictionary["real"] as? NSNumber)?.doubleValue == 2.5)
        #expect(dictionary["bool"] as? Bool == true)
        #expect(dictionary["date"] as? Date == Self.date)
        #expect(dictionary["data"] as? Data == Data([0, 1, 254, 255]))
        let array = try #require(dictionary["array"] as? [Any])
        #expect(array.first as? String == "a" && (array.last as? NSNumber)?.intValue == 1)
        #expect(((dictionary["dict"] as? [String: Any])?["nested"] as? [String: Any])?["x"] as? Bool == false)
    }

    @Test("A file Foundation wrote (XML) is read, and our next save turns it into a binary plist without losing keys")
    func readsFoundationsFile() throws {
        let fixture = TestContainers()
        defer { fixture.remove() }
        let url = try fixture.preferences().appendingPathComponent("com.example.Homepwner.plist")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let theirs: [String: Any] = ["fromFoundation": "yes", "count": 3]
        try PropertyListSerialization.data(fromPropertyList: theirs, format: .xml, options: 0).write(to: url)
        let defaults = try fixture.defaults()
        #expect(defaults.string(forKey: "fromFoundation") == "yes")
        #expect(defaults.integer(forKey: "count") == 3)
        defaults.set("also", forKey: "ours")
        try defaults.flush()
        #expect(try fixture.file("com.example.Homepwner") == ["fromFoundation": "yes", "count": 3, "ours": "also"])
        #expect(try Data(contentsOf: url).starts(with: Array("bplist00".utf8)))
    }
}
