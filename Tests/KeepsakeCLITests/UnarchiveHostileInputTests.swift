import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// `keepsake unarchive` on archives made to break it: every run ends in a printed tree
/// (exit 0) or a typed error (exit 1), never a signal, in bounded time and memory.
@Suite(.enabled(if: CLIRunner.executable != nil, "the keepsake executable is not built"))
final class UnarchiveHostileInputTests: ScratchFiles {
    let scratch = TemporaryDirectory("keepsake-unarchive")

    // MARK: Reproduction 1: deep chains

    /// The printer recursed once per object and overflowed the stack at 20,000 objects
    /// (SIGSEGV); at 10,000 every line carried its full indentation (559 MB of output).
    @Test func aChainOf20000ObjectsPrintsWithBoundedIndentation() throws {
        let path = try file(HostileArchives.chain(links: 20_000))
        let result = try CLIRunner.run(["unarchive", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\"root\" => <Foo #1> {\n  \"next\" => <Foo #2> {\n"))
        #expect(result.stdout.contains("(20000) \"next\" => nil\n"))
        let longest = result.stdout.split(separator: "\n").map(\.utf8.count).max() ?? 0
        #expect(longest < 120, "indentation grows with depth: a line of \(longest) bytes")
        #expect(result.stdoutBytes.count < 5_000_000, "\(result.stdoutBytes.count) bytes of output")
    }

    // MARK: Reproduction 2: shared collections

    /// Collections that hold the next level twice were expanded at every path: 20 levels
    /// of arrays took 26 s and 350 MB, 40 never finished. Each must be written once.
    @Test(arguments: HostileArchives.FanOut.allCases)
    func sharedCollectionsAreWrittenOnceAndReferencedAfter(_ kind: HostileArchives.FanOut) throws {
        let path = try file(HostileArchives.fanOut(levels: 20, kind: kind))
        let started = Date()
        let result = try CLIRunner.run(["unarchive", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(result.stdoutBytes.count < 20_000, "\(result.stdoutBytes.count) bytes: shared levels expanded")
        #expect(result.stdout.components(separatedBy: "(see above)").count - 1 >= 19)
        // Leaves are written where they are reached: twice, in the one deepest collection.
        #expect(result.stdout.components(separatedBy: "\"leaf\"").count - 1 == 2)
    }

    /// The two reproductions at full size, measured on the child: under 2 s of CPU and
    /// 100 MB of resident memory, in a debug build. (CPU time, not wall-clock time: the
    /// machines that run the tests are shared; scripts/hostile-inputs.sh reports both.)
    @Test(
        .enabled(if: Python.executable != nil, "needs python3 to measure the child"),
        .enabled(if: Sanitizer.active == nil, "measures time and memory, which a sanitizer inflates"))
    func fullSizeAttacksStayUnderTwoSecondsAnd100MB() throws {
        let cases = [
            ("fan-out-40", HostileArchives.fanOut(levels: 40, kind: .array)),
            ("chain-100000", HostileArchives.chain(links: 100_000)),
        ]
        for (name, bytes) in cases {
            let path = try file(bytes, name)
            for format in ["text", "json"] {
                let run = try Measured(["unarchive", path, "--format", format])
                #expect(run.status == 0, "\(name) \(format): \(run.stderr)")
                #expect(run.cpuSeconds < 2, "\(name) \(format): \(run)")
                #expect(run.peakMiB < 100, "\(name) \(format): \(run)")
            }
        }
    }

    // MARK: Every hostile archive

    /// What each case ends in: printed (with references where something is reached
    /// again), or the code of the typed error.
    static let expectedCodes: [String: String] = [
        "cycle-NSString": "cycle", "cycle-NSMutableString": "cycle", "cycle-NSData": "cycle",
        "cycle-NSMutableData": "cycle", "cycle-NSURL": "cycle", "cycle-NSDate": "invalidObject",
        "cycle-NSUUID": "invalidObject", "lie-nsarray-without-objects": "invalidObject",
        "lie-nsdictionary-counts": "invalidObject", "lie-nsstring-number": "invalidObject",
        "lie-nsarray-null-element": "invalidObject", "lie-classes-not-a-list": "invalidClassTable",
        "lie-classes-number": "invalidClassTable", "lie-class-is-self": "invalidClassTable",
        "lie-class-is-null": "invalidClassTable", "lie-class-is-string": "invalidClassTable",
        "lie-field-is-class": "invalidObject", "lie-uid-out-of-range": "uidOutOfRange",
    ]

    @Test func everyHostileArchiveEndsInATreeOrATypedError() throws {
        for hostile in HostileArchives.all(fullSize: false) {
            let path = try file(hostile.bytes, hostile.name)
            for format in ["text", "json", "xml1"] {
                let started = Date()
                let result = try CLIRunner.run(["unarchive", path, "--format", format])
                let elapsed = Date().timeIntervalSince(started)
                #expect(elapsed < 2, "\(hostile.name) \(format): \(elapsed) s")
                #expect(result.status == 0 || result.status == 1, "\(hostile.name) \(format): status \(result.status)")
                if let code = Self.expectedCodes[hostile.name] {
                    #expect(result.status == 1, "\(hostile.name) \(format) printed:\n\(result.stdout.prefix(400))")
                    #expect(result.stderr.hasPrefix("Error: \(code): "), "\(hostile.name) \(format): \(result.stderr)")
                } else if format == "xml1" && hostile.name.contains("chain") {
                    #expect(result.stderr.hasPrefix("Error: limitExceeded: "), "\(hostile.name): \(result.stderr)")
                } else {
                    #expect(result.status == 0, "\(hostile.name) \(format): \(result.stderr)")
                    if hostile.name.hasPrefix("cycle") || hostile.name.hasPrefix("fan-out") {
                        let reference =
                            format == "text" ? "(see above)" : format == "json" ? "{\"$ref\":" : "<key>$ref</key>"
                        #expect(result.stdout.contains(reference), "\(hostile.name) \(format):\n\(result.stdout)")
                    }
                }
            }
        }
    }

    // MARK: Reproduction 3: JSON and property-list output

    @Test func jsonWritesEachObjectOnceWithItsIdentity() throws {
        let path = try file(HostileArchives.fanOut(levels: 2, kind: .object))
        let result = try CLIRunner.run(["unarchive", path, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                {"root":{"$id":1,"$class":"Foo","$classes":["Foo","NSObject"],"left":{"$id":2,"$class":"Foo",\
                "$classes":["Foo","NSObject"],"left":"leaf","right":"leaf"},"right":{"$ref":2}}}

                """)
    }

    @Test func jsonWritesSharedCollectionsOnceAndDataAndDatesAsText() throws {
        let value: PropertyListValue = [
            "bytes": .data(Data([1, 2, 3])), "when": .date(Date(timeIntervalSinceReferenceDate: 7)),
            "$odd": [1, 2.5, true],
        ]
        let path = try file([UInt8](try KeyedArchiver.archivedData(withRootObject: value)))
        let result = try CLIRunner.run(["unarchive", path, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let parsed = try JSONSerialization.jsonObject(with: result.stdoutBytes)
        let json = try #require(parsed as? [String: Any])
        let root = try #require(json["root"] as? [String: Any])
        #expect((root["bytes"] as? [String: String]) == ["$data": "AQID"])
        #expect((root["when"] as? [String: String]) == ["$date": "2001-01-01T00:00:07Z"])
        #expect((root["$$odd"] as? [Any])?.count == 3, "a key beginning with $ gets another $")

        let shared = try CLIRunner.run(
            ["unarchive", try file(HostileArchives.fanOut(levels: 2, kind: .array), "shared"), "--format", "json"])
        #expect(shared.stdout == "{\"root\":[{\"$id\":2,\"$array\":[\"leaf\",\"leaf\"]},{\"$ref\":2}]}\n")
    }

    @Test(arguments: [("xml1", PropertyListFormat.xml), ("binary1", .binary)])
    func propertyListOutputGoesToAFileWithSharedObjectsOnce(_ flag: String, _ format: PropertyListFormat) throws {
        let path = try file(HostileArchives.fanOut(levels: 30, kind: .dictionary))
        let target = directory.appendingPathComponent("out.plist")
        let result = try CLIRunner.run(["unarchive", path, "--format", flag, "-o", target.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let bytes = [UInt8](try Data(contentsOf: target))
        #expect(PropertyListFormat.detect(bytes) == format)
        #expect(bytes.count < 20_000, "\(bytes.count) bytes: shared levels expanded")
        let tree = try PropertyListReader().read(bytes)
        #expect(tree["root"]?["a"]?["$id"] == 2)
        #expect(tree["root"]?["b"] == ["$ref": 2])
        #expect(tree["root"]?["a"]?["b"] == ["$ref": 3])
    }

    @Test func propertyListOutputRefusesGraphsDeeperThanReadersAccept() throws {
        let path = try file(HostileArchives.chain(links: 300))
        let target = directory.appendingPathComponent("deep.plist")
        let result = try CLIRunner.run(["unarchive", path, "--format", "binary1", "-o", target.path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: limitExceeded: the graph nests deeper than a property list may"))
        #expect(!FileManager.default.fileExists(atPath: target.path), "a refused rendering left a file")
    }

    @Test func unknownFormatIsAUsageError() throws {
        #expect(try CLIRunner.run(["unarchive", "x", "--format", "yaml"]).status == 64)
    }
}
