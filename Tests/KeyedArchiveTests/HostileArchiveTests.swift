import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

/// Archives built to break an unarchiver: each gives a typed error (or, where the graph
/// is legal, a correct result) and never a crash, a hang or a runaway allocation.
struct HostileArchiveTests {
    typealias B = ArchiveBuilder

    func code(_ bytes: [UInt8], limits: PropertyListLimits = .default, _ decode: (KeyedDecoder) throws -> Void)
        -> KeyedArchiveError.Code?
    {
        do {
            try decode(try KeyedDecoder(bytes: bytes, limits: limits))
            return nil
        } catch let error as KeyedArchiveError {
            return error.code
        } catch {
            Issue.record("untyped error \(error)")
            return nil
        }
    }

    func genericCode(_ bytes: [UInt8], limits: PropertyListLimits = .default) -> KeyedArchiveError.Code? {
        code(bytes, limits: limits) { decoder in
            decoder.allowsGenericObjects = true
            _ = try decoder.decodeTopLevelObject(forKey: "root")
        }
    }

    // MARK: Cycles

    @Test func genericObjectReferencingItselfKeepsTheCycle() throws {
        // 1 = <Loop: me → 1>.
        let bytes = B.archive(["$null", ["$class": B.uid(2), "me": B.uid(1)], B.classEntry("Loop")])
        let top = try KeyedUnarchiver.unarchivedTopLevelObjects(from: Data(bytes))
        let loop = try #require(top.first?.value as? ArchivedObject)
        #expect(loop["me"] as? ArchivedObject === loop)
    }

    @Test(.requiresCorpus)
    func cyclicGenericGraphsAreFreedWithTheirTopLevelValues() throws {
        weak var window: ArchivedObject?
        weak var loop: ArchivedObject?
        try {
            let nib = try Corpus.data("archives/apple/R-macos-Mac-GUI/English.lproj_RDocument.nib_keyedobjects.nib")
            let top = try KeyedUnarchiver.unarchivedTopLevelObjects(from: nib)
            let objectData = try #require(top.first?.value as? ArchivedObject)
            window = objectData["NSRoot"] as? ArchivedObject
            let bytes = B.archive(["$null", ["$class": B.uid(2), "me": B.uid(1)], B.classEntry("Loop")])
            loop = try KeyedUnarchiver.unarchivedTopLevelObjects(from: Data(bytes)).first?.value as? ArchivedObject
            #expect(window != nil)
            #expect(loop?["me"] as? ArchivedObject === loop)
        }()
        #expect(window == nil, "a nib's object graph outlives its top-level values")
        #expect(loop == nil, "a self-referencing object outlives its top-level value")
    }

    @Test func typedObjectReachingItselfIsACycle() {
        // 1 = Node(next: 2), 2 = Node(next: 1).
        let bytes = B.archive([
            "$null", ["$class": B.uid(3), "value": 1, "next": B.uid(2)],
            ["$class": B.uid(3), "value": 2, "next": B.uid(1)],
            B.classEntry(Node.archiveClassName),
        ])
        #expect(code(bytes) { _ = try $0.decode(Node.self, forKey: "root") } == .cycle)
    }

    @Test func arrayContainingItselfIsACycle() {
        let bytes = B.archive(["$null", ["$class": B.uid(2), "NS.objects": [B.uid(1)]], B.classEntry("NSArray")])
        #expect(genericCode(bytes) == .cycle)
        #expect(code(bytes) { _ = try $0.decode(PropertyListValue.self, forKey: "root") } == .cycle)
    }

    @Test func mutableStringWhoseStringIsItselfIsACycle() {
        let bytes = B.archive(["$null", ["$class": B.uid(2), "NS.string": B.uid(1)], B.classEntry("NSMutableString")])
        #expect(code(bytes) { _ = try $0.decode(String.self, forKey: "root") } == .cycle)
    }

    @Test func plainArrayEntryReferencingItselfIsACycle() {
        // An $objects entry that is a bare array holding its own UID.
        let bytes = B.archive(["$null", [B.uid(1)]])
        #expect(genericCode(bytes) == .cycle)
        // The same, decoded as a property-list value (found by fuzzing: it recursed).
        #expect(code(bytes) { _ = try $0.decode(PropertyListValue.self, forKey: "root") } == .cycle)
    }

    // MARK: Depth and size

    /// 100,000 arrays, each the only element of the one before.
    static let deepArrays: [UInt8] = {
        var objects: [PropertyListValue] = ["$null"]
        for index in 1...100_000 { objects.append(["$class": B.uid(100_001), "NS.objects": [B.uid(index + 1)]]) }
        objects.append(B.classEntry("NSArray"))
        objects[100_000] = ["$class": B.uid(100_001), "NS.objects": []]
        return B.archive(objects)
    }()

    @Test func hundredThousandNestedArraysHitTheDepthLimit() {
        #expect(genericCode(Self.deepArrays) == .limitExceeded)
        #expect(code(Self.deepArrays) { _ = try $0.decode(PropertyListValue.self, forKey: "root") } == .limitExceeded)
    }

    @Test func hundredThousandNestedObjectsHitTheDepthLimit() {
        var objects: [PropertyListValue] = ["$null"]
        for index in 1...100_000 {
            objects.append(["$class": B.uid(100_001), "value": 1, "next": B.uid(index == 100_000 ? 0 : index + 1)])
        }
        objects.append(B.classEntry(Node.archiveClassName))
        let bytes = B.archive(objects)
        #expect(code(bytes) { _ = try $0.decode(Node.self, forKey: "root") } == .limitExceeded)
        // As generic objects the chain is not nesting: it decodes, without recursion.
        #expect(genericCode(bytes) == nil)
    }

    @Test func hundredThousandNestedURLBasesHitTheDepthLimit() {
        var objects: [PropertyListValue] = ["$null", "x"]
        for index in 2...100_001 {
            objects.append([
                "$class": B.uid(100_002), "NS.relative": B.uid(1), "NS.base": B.uid(index == 100_001 ? 0 : index + 1),
            ])
        }
        objects.append(B.classEntry("NSURL"))
        #expect(
            code(B.archive(objects, top: ["root": B.uid(2)])) { _ = try $0.decode(URL.self, forKey: "root") }
                == .limitExceeded)
    }

    @Test func legitimateNestingAtTheDepthLimitDecodes() throws {
        // 200 nested arrays: within the default limit of 256, and the test thread's stack.
        var objects: [PropertyListValue] = ["$null"]
        for index in 1...200 {
            objects.append(["$class": B.uid(201), "NS.objects": index == 200 ? [] : [B.uid(index + 1)]])
        }
        objects.append(B.classEntry("NSArray"))
        let value = try KeyedUnarchiver.unarchivedObject(ofClass: PropertyListValue.self, from: B.archive(objects))
        var depth = 0
        var current = value
        while case .array(let elements)? = current {
            depth += 1
            current = elements.first
        }
        #expect(depth == 200)
    }

    @Test func fanOutIsDecodedOnceAndCountedWhenWalked() throws {
        // 60 levels of [previous, previous]: 2^60 paths, 61 objects.
        var objects: [PropertyListValue] = ["$null", "leaf"]
        for index in 2...61 {
            objects.append(["$class": B.uid(62), "NS.objects": [B.uid(index - 1), B.uid(index - 1)]])
        }
        objects.append(B.classEntry("NSArray"))
        let bytes = B.archive(objects, top: ["root": B.uid(61)])
        // The unarchiver decodes each object once; Swift arrays share the repeated halves.
        let decoded = try KeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self], from: Data(bytes))
        #expect(decoded is [Any])
        // A Decodable walk visits every path, so it is stopped by the value budget (kept
        // small here so the debug build gets there fast).
        let limits = PropertyListLimits(maxObjectCount: 100_000)
        #expect(
            code(bytes, limits: limits) { _ = try $0.decodeTopLevelDecodable(Tree.self, forKey: "root") }
                == .limitExceeded)
    }

    indirect enum Tree: Decodable {
        case leaf(String)
        case node([Tree])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let leaf = try? container.decode(String.self) {
                self = .leaf(leaf)
            } else {
                self = .node(try container.decode([Tree].self))
            }
        }
    }

    @Test func valueAndByteLimitsApplyToTheWholeArchive() {
        let strings: [PropertyListValue] = (0..<1_000).map { .string("string number \($0)") }
        let bytes = B.archive(
            ["$null", ["$class": B.uid(1_002), "NS.objects": .array((2..<1_002).map { B.uid($0) })]] + strings + [
                B.classEntry("NSArray")
            ])
        #expect(genericCode(bytes) == nil)
        #expect(genericCode(bytes, limits: PropertyListLimits(maxObjectCount: 500)) == .limitExceeded)
        #expect(genericCode(bytes, limits: PropertyListLimits(maxByteCount: 5_000)) == .limitExceeded)
    }

    // MARK: References

    @Test func rootUIDOutOfRange() {
        #expect(genericCode(B.archive(["$null"], top: ["root": B.uid(999)])) == .uidOutOfRange)
    }

    @Test func elementUIDOutOfRange() {
        let bytes = B.archive(["$null", ["$class": B.uid(2), "NS.objects": [B.uid(3)]], B.classEntry("NSArray")])
        #expect(genericCode(bytes) == .uidOutOfRange)
    }

    @Test func classUIDOutOfRange() {
        #expect(genericCode(B.archive(["$null", ["$class": B.uid(77)]])) == .uidOutOfRange)
    }

    @Test func fieldUIDOutOfRangeInAGenericObject() {
        let bytes = B.archive(["$null", ["$class": B.uid(2), "x": B.uid(1 << 40)], B.classEntry("Thing")])
        #expect(genericCode(bytes) == .uidOutOfRange)
    }

    @Test func entryThatIsItselfAUID() {
        #expect(genericCode(B.archive(["$null", B.uid(1)])) == .invalidObject)
        #expect(code(B.archive(["$null", B.uid(1)])) { _ = try $0.decode(Int.self, forKey: "root") } == .typeMismatch)
    }

    // MARK: Class-table lies

    @Test(
        arguments: [
            (
                "$class is a string", ["$null", ["$class": B.uid(2)], "NSArray"],
                KeyedArchiveError.Code.invalidClassTable
            ),
            ("$class is an object", ["$null", ["$class": B.uid(2)], ["$class": B.uid(1)]], .invalidClassTable),
            ("$class is itself", ["$null", ["$class": B.uid(1)]], .invalidClassTable),
            ("$class is $null", ["$null", ["$class": B.uid(0)]], .invalidClassTable),
            ("$class is inline", ["$null", ["$class": "NSArray"]], .invalidClassTable),
            ("$classname is a number", ["$null", ["$class": B.uid(2)], ["$classname": 5]], .invalidClassTable),
            (
                "$classes is a string", ["$null", ["$class": B.uid(2)], ["$classname": "X", "$classes": "X"]],
                .invalidClassTable
            ),
            (
                "$classes holds a number", ["$null", ["$class": B.uid(2)], ["$classname": "X", "$classes": [1]]],
                .invalidClassTable
            ),
            ("no $class", ["$null", ["name": "x"]], .invalidObject),
            ("NSArray without NS.objects", ["$null", ["$class": B.uid(2)], B.classEntry("NSArray")], .invalidObject),
            (
                "NSArray holding a string",
                ["$null", ["$class": B.uid(2), "NS.objects": "x"], B.classEntry("NSArray")], .invalidObject
            ),
            (
                "NSArray holding nil",
                ["$null", ["$class": B.uid(2), "NS.objects": [B.uid(0)]], B.classEntry("NSArray")], .invalidObject
            ),
            (
                "NSDictionary of 1 key, 0 objects",
                [
                    "$null", ["$class": B.uid(2), "NS.keys": [B.uid(3)], "NS.objects": []],
                    B.classEntry("NSDictionary"), "k",
                ], .invalidObject
            ),
            (
                "NSDate with a string time",
                ["$null", ["$class": B.uid(2), "NS.time": "now"], B.classEntry("NSDate")], .invalidObject
            ),
            (
                "NSUUID of 3 bytes",
                ["$null", ["$class": B.uid(2), "NS.uuidbytes": .data(Data([1, 2, 3]))], B.classEntry("NSUUID")],
                .invalidObject
            ),
            ("NSURL without NS.relative", ["$null", ["$class": B.uid(2)], B.classEntry("NSURL")], .invalidObject),
            (
                "NSString without NS.string", ["$null", ["$class": B.uid(2)], B.classEntry("NSMutableString")],
                .invalidObject
            ),
            ("NSData without bytes", ["$null", ["$class": B.uid(2)], B.classEntry("NSMutableData")], .invalidObject),
        ] as [(String, [PropertyListValue], KeyedArchiveError.Code)])
    func classTableLie(_ name: String, _ objects: [PropertyListValue], _ expected: KeyedArchiveError.Code) {
        #expect(genericCode(B.archive(objects)) == expected, "\(name)")
    }

    @Test func classClaimingToBeAStringIsNotAnItem() {
        let bytes = B.archive(["$null", ["$class": B.uid(2), "NS.string": "hi"], B.classEntry("NSString")])
        #expect(code(bytes) { _ = try $0.decode(Item.self, forKey: "root") } == .typeMismatch)
        #expect(code(bytes) { _ = try $0.decode(String.self, forKey: "root") } == nil)
    }

    @Test func itemClaimingToBeAnArrayIsNotAnArray() {
        let bytes = B.archive(["$null", ["$class": B.uid(2), "NS.objects": []], B.classEntry(Item.archiveClassName)])
        #expect(code(bytes) { _ = try $0.decode([String].self, forKey: "root") } == .typeMismatch)
    }

    // MARK: Secure decoding

    @Test func classOfThisProcessThatWasNotAllowedIsRefused() throws {
        let folder = Folder(name: "f")
        let data = try KeyedArchiver.archivedData(withRootObject: [Asset(label: "a"), folder] as [Any])
        // Asset and arrays are allowed; Folder exists in this process but nobody listed it.
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, Asset.self], from: data)
        }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.className == Folder.archiveClassName)
        #expect(error?.keyPath == "root[1]")
        #expect(error?.foundationErrorCode == 4864)
        // With generic objects on, the data is readable without running the class's code.
        let top = try KeyedUnarchiver.unarchivedTopLevelObjects(from: data)
        #expect(
            (top.first?.value as? [Any])?.compactMap { ($0 as? ArchivedObject)?.className } == [
                Asset.archiveClassName, Folder.archiveClassName,
            ])
    }

    @Test func unknownClassIsReportedByName() {
        let bytes = B.archive([
            "$null", ["$class": B.uid(2)], B.classEntry("Evil.Payload", ["Evil.Payload", "NSObject"]),
        ])
        let decoder = try? KeyedDecoder(bytes: bytes)
        decoder?.requiresSecureCoding = false
        #expect(throws: KeyedArchiveError.self) { try decoder?.decodeTopLevelObject(forKey: "root") }
        #expect(code(bytes) { _ = try $0.decodeTopLevelObject(forKey: "root") } == .unknownClass)
        #expect(code(bytes) { _ = try $0.decode(Item.self, forKey: "root") } == .unknownClass)
    }

    @Test func errorsNameTheKeyPathAndUID() throws {
        // root = [Item, Item]; the second item's name is a number.
        let bytes = B.archive([
            "$null", ["$class": B.uid(4), "NS.objects": [B.uid(2), B.uid(3)]],
            ["$class": B.uid(5), "name": B.uid(6), "dateCreated": B.uid(7)],
            ["$class": B.uid(5), "name": 12, "dateCreated": B.uid(7)],
            B.classEntry("NSArray"), B.classEntry("Homepwner.Item"), "Spork",
            ["$class": B.uid(8), "NS.time": 0.0], B.classEntry("NSDate"),
        ])
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Item.self, from: Data(bytes))
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == "root[1].name")
        #expect(error?.uid == 3)
        #expect(error?.className == "Homepwner.Item")
    }

    // MARK: UIDs

    /// A binary archive whose `root` field is the UID stored as `uid` (marker and bytes),
    /// pointing at `$objects[1]`, the string "hello". Written by hand: no writer makes a
    /// UID wider than it needs.
    static func archive(rootUID uid: [UInt8]) -> [UInt8] {
        func ascii(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            return (bytes.count < 15 ? [0x50 | UInt8(bytes.count)] : [0x5F, 0x10, UInt8(bytes.count)]) + bytes
        }
        let objects: [[UInt8]] = [
            [0xD4, 1, 2, 3, 4, 5, 6, 7, 8],  // 0: {$archiver, $version, $top, $objects}
            ascii("$archiver"), ascii("$version"), ascii("$top"), ascii("$objects"),  // 1–4
            ascii("NSKeyedArchiver"),  // 5
            [0x12, 0x00, 0x01, 0x86, 0xA0],  // 6: 100000
            [0xD1, 9, 10],  // 7: $top = {root: 10}
            [0xA2, 11, 12],  // 8: $objects = [11, 12]
            ascii("root"),  // 9
            uid,  // 10
            ascii("$null"), ascii("hello"),  // 11, 12
        ]
        return BinaryPlistBytes.build(objects: objects)
    }

    @Test func uidsOfUpToEightBytesResolve() throws {
        for width in 1...8 {
            let uid = [0x80 | UInt8(width - 1)] + [UInt8](repeating: 0, count: width - 1) + [1]
            let decoder = try KeyedDecoder(bytes: Self.archive(rootUID: uid))
            #expect(try decoder.decodeTopLevelObject(forKey: "root") as? String == "hello", "a \(width)-byte UID")
        }
    }

    @Test func uidWiderThanEightBytesIsRefusedNotTruncated() throws {
        // Nine bytes holding 2^64 + 1: truncating to 8 bytes would read UID 1, "hello".
        let uid: [UInt8] = [0x88, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x01]
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedDecoder(bytes: Self.archive(rootUID: uid)).decodeTopLevelObject(forKey: "root")
        }
        #expect(error?.code == .invalidPropertyList)
        #expect((error?.underlyingError as? PropertyListError)?.code == .invalidObject)
        // The property-list reader refuses the same object, with its number.
        let plistError = #expect(throws: PropertyListError.self) {
            try PropertyListReader().read(Self.archive(rootUID: uid))
        }
        #expect(plistError?.code == .invalidObject)
        #expect(plistError?.objectIndex == 10)
    }
}
