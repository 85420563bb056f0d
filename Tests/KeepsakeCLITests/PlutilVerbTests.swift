import Foundation
import PropertyList
import TestSupport
import Testing

/// `keepsake extract|type|insert|replace|remove|create` and `convert --format
/// swift|objc`, checked against the Swift toolchain's own `plutil` where it keeps
/// Apple's documented behaviour, and on their own where it does not.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class PlutilVerbTests: ScratchFiles {
    /// The toolchain's `plutil`, installed with Swift on Linux.
    static let plutil: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("plutil")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }()

    static let inventory: PropertyListValue = [
        "items": [
            ["name": "Rusty Spork", "valueInDollars": 42, "serialNumber": "A1B2C3", "ratio": 0.25],
            [
                "name": "Shiny Bear", "valueInDollars": 7, "tags": ["a", "b"],
                "created": .date(Date(timeIntervalSince1970: 1_700_000_000)),
            ],
        ],
        "owner.name": "Joe",
        "Zeta": true,
        "alpha": false,
        "item10": 10,
        "item2": 2,
        "photo": .data(Data([0, 1, 2, 250])),
        "negative": -5,
    ]

    let scratch = TemporaryDirectory("keepsake-plutil")

    static func run(plutil arguments: [String]) throws -> CLIRunner.Result {
        try CLIRunner.run(try #require(plutil), arguments)
    }

    static let keyPaths = [
        "items", "items.0", "items.1.name", "items.0.valueInDollars", "items.0.ratio", "items.1.tags",
        "items.1.tags.1", "items.1.created", "owner\\.name", "owner.name", "Zeta", "alpha", "photo", "negative",
        "items.2", "items.x", "nothing", "",
    ]

    /// Raw text, types and the exit status agree with plutil's for every key path, in
    /// binary and XML files: sorted keys, six-decimal reals, dates, base 64, counts.
    @Test(
        .enabled(if: plutil != nil, "the toolchain's plutil is not on PATH"),
        arguments: [PropertyListFormat.binary, .xml])
    func extractAndTypeAgreeWithPlutil(format: PropertyListFormat) throws {
        let path = try file("inventory.plist", Self.inventory, format: format)
        for keyPath in Self.keyPaths {
            let theirs = try Self.run(plutil: ["-extract", keyPath, "raw", path])
            let ours = try CLIRunner.run(["extract", keyPath, "raw", path])
            #expect(ours.status == theirs.status, "extract \(keyPath): \(ours.stderr)")
            #expect(ours.stdout == theirs.stdout, "extract \(keyPath)")
            let theirType = try Self.run(plutil: ["-type", keyPath, path])
            let ourType = try CLIRunner.run(["type", keyPath, path])
            #expect(ourType.status == theirType.status, "type \(keyPath)")
            #expect(ourType.stdout == theirType.stdout, "type \(keyPath)")
        }
    }

    /// Extracting a container as XML or JSON gives the value plutil gives (compared as
    /// values: plutil's JSON keys come in hash order).
    @Test(.enabled(if: plutil != nil, "the toolchain's plutil is not on PATH"), arguments: ["xml1", "json"])
    func extractedPartsAreThoseOfPlutil(format: String) throws {
        let path = try file("inventory.plist", Self.inventory)
        for keyPath in ["items.0", "items.1.tags"] {
            let theirs = try Self.run(plutil: ["-extract", keyPath, format, "-o", "-", path])
            let ours = try CLIRunner.run(["extract", keyPath, format, path])
            #expect(ours.status == 0, "\(ours.stderr)")
            #expect(
                try PropertyListReader().read([UInt8](ours.stdoutBytes))
                    == PropertyListReader().read([UInt8](theirs.stdoutBytes)))
        }
    }

    /// plutil refuses a scalar as JSON; keepsake writes it as a JSON fragment.
    @Test func aScalarExtractsAsAJSONFragment() throws {
        let path = try file("inventory.plist", Self.inventory)
        let result = try CLIRunner.run(["extract", "owner\\.name", "json", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\"Joe\"")
    }

    /// A path that is a pipe (`/dev/stdin`, `<(…)`) cannot be read at offsets; it is read as a
    /// stream instead, as is `-`.
    @Test(arguments: ["-", "/dev/stdin"])
    func extractReadsPipes(path: String) throws {
        let bytes = try PropertyListWriter.binary.write(Self.inventory)
        let result = try CLIRunner.run(["extract", "items.1.name", "raw", path], stdin: Data(bytes))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Shiny Bear\n")
    }

    @Test func expectRefusesAnotherType() throws {
        let path = try file("inventory.plist", Self.inventory)
        #expect(try CLIRunner.run(["extract", "items", "raw", path, "-expect", "array"]).stdout == "2\n")
        let wrong = try CLIRunner.run(["extract", "items", "raw", path, "--expect", "dictionary"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("expected to be dictionary but is array"))
        #expect(try CLIRunner.run(["type", "alpha", path, "-n"]).stdout == "bool")
    }

    static let edits: [[String]] = [
        ["-insert", "newKey", "-string", "hello"],
        ["-insert", "items.1", "-integer", "-5"],
        ["-insert", "items.2", "-dictionary"],
        ["-insert", "items.1.tags", "-string", "c", "-append"],
        ["-insert", "alpha", "-bool", "YES"],
        ["-insert", "items.9", "-float", "1.5"],
        ["-insert", "nobody.name", "-string", "x"],
        ["-insert", "when", "-date", "2024-01-31T12:00:00Z"],
        ["-insert", "blob", "-data", "AAEC/w=="],
        ["-insert", "fromJSON", "-json", #"{"a":[1,2.5,"x"]}"#],
        ["-insert", "fromXML", "-xml", "<plist><array><string>q</string><true/></array></plist>"],
        ["-replace", "items.0.name", "-bool", "true"],
        ["-replace", "owner\\.name", "-array"],
        ["-replace", "nobody.name", "-string", "x"],
        ["-remove", "items.0"],
        ["-remove", "owner\\.name"],
        ["-remove", "items.7"],
        ["-remove", "nothing"],
    ]

    /// Each edit leaves the same tree as plutil's, or fails as plutil's does, and keeps
    /// the file's format.
    @Test(.enabled(if: plutil != nil, "the toolchain's plutil is not on PATH"), arguments: edits)
    func editsAgreeWithPlutil(edit: [String]) throws {
        let theirs = try file("theirs.plist", Self.inventory)
        let ours = try file("ours.plist", Self.inventory)
        let theirResult = try Self.run(plutil: edit + [theirs])
        let ourResult = try CLIRunner.run([String(edit[0].dropFirst())] + edit.dropFirst() + [ours])
        #expect(ourResult.status == theirResult.status, "\(ourResult.stderr)")
        let theirTree = try PropertyListReader().readWithFormat([UInt8](Data(contentsOf: URL(fileURLWithPath: theirs))))
        let ourTree = try PropertyListReader().readWithFormat([UInt8](Data(contentsOf: URL(fileURLWithPath: ours))))
        #expect(ourTree.value == theirTree.value)
        #expect(ourTree.format == .binary)
    }

    /// Where plutil stores 0 or NO for text that is no value of the type, the edit is
    /// refused and the file left byte for byte as it was.
    @Test(arguments: [
        ["insert", "n", "-integer", "twelve"], ["insert", "b", "-bool", "maybe"],
        ["insert", "f", "-float", "1.2.3"], ["insert", "d", "-date", "yesterday"],
        ["insert", "x", "-string", "a", "-integer", "1"], ["insert", "x"],
    ])
    func badValuesAreRefusedAndTheFileKept(arguments: [String]) throws {
        let path = try file("inventory.xml", Self.inventory, format: .xml)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try CLIRunner.run(arguments + [path])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func editsWriteAnotherFileOrFormatWhenAsked() throws {
        let path = try file("inventory.xml", Self.inventory, format: .xml)
        let target = directory.appendingPathComponent("edited.bin").path
        let result = try CLIRunner.run(["remove", "photo", path, "-o", target, "--format", "binary1"])
        #expect(result.status == 0, "\(result.stderr)")
        let edited = try PropertyListReader().readWithFormat([UInt8](Data(contentsOf: URL(fileURLWithPath: target))))
        #expect(edited.format == .binary)
        #expect(edited.value.value(at: "photo") == nil)
        #expect(edited.value.value(at: "items.0.name") == "Rusty Spork")
        #expect(try PropertyListReader().read([UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) == Self.inventory)
    }

    /// Source code as plutil writes it, for values both spell the same way: strings,
    /// numbers, booleans, nested containers.
    @Test(.enabled(if: plutil != nil, "the toolchain's plutil is not on PATH"), arguments: ["swift", "objc"])
    func sourceCodeIsPlutils(language: String) throws {
        let value: PropertyListValue = [
            "name": "Rusty Spork", "values": [1, 2, 3], "nested": ["b": true, "a": 2.5, "A10": "x", "a9": "y"],
            "mixed": [1, "two", false],
        ]
        let path = try file("Settings-File.plist", value)
        let theirs = try Self.run(plutil: ["-convert", language, "-o", "-", path])
        let ours = try CLIRunner.run(["convert", path, "--format", language, "-o", "-"])
        #expect(ours.status == 0, "\(ours.stderr)")
        #expect(ours.stdout == theirs.stdout)
    }

    /// The Swift compiles as it is, whatever the plist holds: dates, data, escapes,
    /// empty and mixed collections at any depth, a number too wide for `Int`.
    @Test(.enabled(if: swiftc != nil, "swiftc is not on PATH"))
    func swiftSourceCompiles() throws {
        let value: PropertyListValue = [
            "quote \" and \\ and \n and \u{1}": "tab\there \u{7F} \"quoted\" é",
            "when": .date(Date(timeIntervalSinceReferenceDate: 1.5)), "blob": .data(Data([0, 255])),
            "empty": [], "emptyDictionary": [:], "mixed": [["a": 1, "b": "x"], [1, [2, "3"]]],
            "wide": .unsignedInteger(.max), "nan": .real(.nan), "ints": [1, 2],
        ]
        let path = try file("Tricky.plist", value)
        let source = directory.appendingPathComponent("Tricky.swift")
        let result = try CLIRunner.run(["convert", path, "--format", "swift"])
        #expect(result.status == 0, "\(result.stderr)")
        let generated = try String(contentsOf: source, encoding: .utf8)
        #expect(generated.hasPrefix("/// Generated from Tricky.plist\nlet Tricky : [String : Any] = [\n"))
        let checked = directory.appendingPathComponent("Checked.swift")
        try Data(("import Foundation\n" + generated + "print(Tricky.count)\n").utf8).write(to: checked)
        let compile = try CLIRunner.run(try #require(Self.swiftc), ["-typecheck", checked.path])
        #expect(compile.status == 0, "\(compile.stderr)\n\(generated)")
    }

    static let swiftc: URL? = plutil.map { $0.deletingLastPathComponent().appendingPathComponent("swiftc") }.flatMap {
        FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil
    }

    @Test func objectiveCRefusesDatesAndWritesItsHeader() throws {
        let dated = try file("dated.plist", ["when": .date(Date())])
        let refused = try CLIRunner.run(["convert", dated, "--format", "objc"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Objective-C literals have no date values"))
        let plain = try file("plain.plist", ["name": "x"])
        #expect(try CLIRunner.run(["convert", plain, "--format", "objc", "--header"]).status == 0)
        let header = try String(contentsOf: directory.appendingPathComponent("plain.h"), encoding: .utf8)
        #expect(header.contains("extern NSDictionary * const plain;"))
        let implementation = try String(contentsOf: directory.appendingPathComponent("plain.m"), encoding: .utf8)
        #expect(implementation.hasPrefix("#import \"plain.h\"\n"))
        #expect(implementation.contains("@\"name\" : @\"x\","))
    }

    @Test func sourceCodeNeverReplacesItsInput() throws {
        let path = try file("Settings.swift", ["name": "x"])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try CLIRunner.run(["convert", path, "--format", "swift"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let plain = try file("plain.plist", ["name": "x"])
        #expect(try CLIRunner.run(["convert", plain, "--format", "objc", "--header", "-o", "-"]).status == 64)
    }

    @Test(arguments: ["xml1", "binary1", "json", "swift", "objc"])
    func createWritesAnEmptyDictionary(format: String) throws {
        let path = directory.appendingPathComponent("new-\(format)").path
        let result = try CLIRunner.run(["create", format, path])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        if format == "swift" || format == "objc" {
            #expect(String(decoding: bytes, as: UTF8.self).contains(format == "swift" ? "= [:]" : "= @{\n}"))
        } else {
            #expect(try PropertyListReader().read(bytes) == [:])
        }
    }
}

/// Key paths beginning with `-` (real keys, such as the error codes of a string table)
/// and Objective-C output that no C standard can misread.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class PlutilEdgeTests: ScratchFiles {
    let scratch = TemporaryDirectory("keepsake-edges")

    /// An error-string table, keyed by negative codes as such tables are.
    func errorTable() throws -> String {
        try file("Errors.plist", ["-122": "offline", "-1424": "timed out", "items": ["-1": "x"]], format: .xml)
    }

    func read(_ path: String) throws -> PropertyListValue {
        try PropertyListReader().read([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test("extract and type take a key path beginning with - as plutil does")
    func readingVerbs() throws {
        let path = try errorTable()
        let extracted = try CLIRunner.run(["extract", "-122", "raw", path])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        #expect(extracted.stdout == "offline\n")
        let nested = try CLIRunner.run(["extract", "-1424", "raw", path, "-n"])
        #expect(nested.stdout == "timed out")
        let typed = try CLIRunner.run(["type", "-122", path, "-expect", "string"])
        #expect(typed.status == 0, "\(typed.stderr)")
        #expect(typed.stdout == "string\n")
        let missing = try CLIRunner.run(["extract", "-9", "raw", path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("-9"), "\(missing.stderr)")
    }

    @Test("insert, replace and remove take a key path beginning with - as plutil does")
    func editingVerbs() throws {
        let path = try errorTable()
        let inserted = try CLIRunner.run(["insert", "-1001", "-integer", "-5", path])
        #expect(inserted.status == 0, "\(inserted.stderr)")
        #expect(try read(path)["-1001"] == -5)
        let replaced = try CLIRunner.run(["replace", "-122", "-string", "online", path])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try read(path)["-122"] == "online")
        let removed = try CLIRunner.run(["remove", "-1424", path])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try read(path)["-1424"] == nil)
        #expect(try read(path)["items"]?["-1"] == "x", "a key path's later components were not touched")
    }

    @Test("-- before the key path, and options before it, parse as ArgumentParser reads them")
    func commandLinesThatParseAsTheyAre() throws {
        let path = try errorTable()
        let separated = try CLIRunner.run(["extract", "--", "-122", "raw", path])
        #expect(separated.status == 0, "\(separated.stderr)")
        #expect(separated.stdout == "offline\n")
        let optionsFirst = try CLIRunner.run(["type", "-expect", "array", "items", path])
        #expect(optionsFirst.status == 1, "items is a dictionary: \(optionsFirst.stderr)")
        #expect(optionsFirst.stderr.contains("expected to be array but is dictionary"), "\(optionsFirst.stderr)")
    }

    @Test("help is still help after a verb")
    func helpAfterAVerb() throws {
        let result = try CLIRunner.run(["extract", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: keepsake extract"), "\(result.stdout)")
    }

    static let cc: URL? = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"].lazy.map(URL.init(fileURLWithPath:)).first {
        FileManager.default.isExecutableFile(atPath: $0.path)
    }

    /// Every trigraph, and runs of `?` around them: each string literal of the
    /// Objective-C output, compiled as C11 with trigraphs on, prints the key unchanged.
    @Test(.enabled(if: cc != nil, "no C compiler at /usr/bin/cc, gcc or clang"))
    func objectiveCStringsSurviveTrigraphs() throws {
        let keys = [
            "??=", "??/", "??'", "??(", "??)", "??!", "??<", "??>", "??-", "a???/b", "?", "??", "????/\"", "x?",
        ]
        let plist = directory.appendingPathComponent("Trigraphs.plist").path
        let table = PropertyListValue.dictionary(
            PropertyListDictionary(keys.map { ($0, PropertyListValue.string("v")) }))
        try Data(try PropertyListWriter.xml.write(table)).write(to: URL(fileURLWithPath: plist))
        let result = try CLIRunner.run(["convert", plist, "--format", "objc", "-o", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        // The keys' literals, `@"…" : @"v",`, as C string literals.
        let literals = result.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "@\""), let end = line.range(of: "\" : @\"v\"") else { return nil }
            return "\"" + line[start.upperBound..<end.lowerBound] + "\""
        }
        #expect(literals.count == keys.count, "\(result.stdout)")
        let program = directory.appendingPathComponent("keys.c")
        let source =
            "#include <stdio.h>\nint main(void) {\n"
            + literals.map { "    puts(\($0));\n" }.joined() + "    return 0;\n}\n"
        try Data(source.utf8).write(to: program)
        let binary = directory.appendingPathComponent("keys").path
        let compiled = try CLIRunner.run(
            try #require(Self.cc), ["-std=c11", "-trigraphs", "-Werror=trigraphs", program.path, "-o", binary])
        #expect(compiled.status == 0, "\(compiled.stderr)\n\(source)")
        let printed = try CLIRunner.run(URL(fileURLWithPath: binary), [])
        #expect(
            Set(printed.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))
                == Set(keys))
    }
}
