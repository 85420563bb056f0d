// Also compiled with plain swiftc, together with the PropertyList sources as one
// module, by scripts/hostile-inputs.sh, where there is nothing to import.
#if canImport(PropertyList)
import PropertyList
#endif

/// Keyed archives made to attack an unarchiver or a printer of archives: deep chains,
/// collections that share their elements level after level, cycles through every
/// Foundation class the unarchiver knows, and class tables that lie.
///
/// The tests run them at small sizes; scripts/hostile-inputs.sh writes them at full
/// size (``all(fullSize:)``) and times `keepsake unarchive` on each.
enum HostileArchives {
    /// One archive and what it attacks.
    struct Case {
        var name: String
        var bytes: [UInt8]
    }

    /// The Foundation classes the unarchiver decodes into Swift values
    /// (Sources/KeyedArchive/Internals/FoundationClass.swift).
    static let foundationClasses = [
        "NSString", "NSMutableString", "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSDictionary",
        "NSMutableDictionary", "NSDate", "NSData", "NSMutableData", "NSUUID", "NSURL",
    ]

    /// Every case; `fullSize` picks the sizes of the reproductions (chains of 20,000 and
    /// 100,000 links, fan-outs of 20 and 40 levels) over the tests' smaller ones.
    static func all(fullSize: Bool) -> [Case] {
        let links = fullSize ? [20_000, 100_000] : [2_000, 10_000]
        var cases = links.map { Case(name: "chain-\($0)", bytes: chain(links: $0)) }
        cases += links.map { Case(name: "array-chain-\($0)", bytes: chain(links: $0, className: "NSArray")) }
        for levels in [20, 40] {
            for kind in FanOut.allCases {
                cases.append(Case(name: "fan-out-\(kind)-\(levels)", bytes: fanOut(levels: levels, kind: kind)))
            }
        }
        cases += foundationClasses.map { Case(name: "cycle-\($0)", bytes: selfCycle(className: $0)) }
        cases.append(Case(name: "cycle-dictionary-key", bytes: dictionaryKeyCycle()))
        cases.append(Case(name: "cycle-object-array-object", bytes: objectArrayCycle()))
        cases += classLies()
        return cases
    }

    // MARK: Building

    static func uid(_ value: Int) -> PropertyListValue {
        .uid(PropertyListUID(UInt64(value)))
    }

    static func classEntry(_ name: String, chain: [String]? = nil) -> PropertyListValue {
        ["$classname": .string(name), "$classes": .array((chain ?? [name, "NSObject"]).map(PropertyListValue.string))]
    }

    /// A binary archive of `objects` (UID 0 is `$null`, added here) with `root` in `$top`.
    static func archive(_ objects: [PropertyListValue], root: PropertyListValue = uid(1)) -> [UInt8] {
        let value: PropertyListValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": root],
            "$objects": .array(["$null"] + objects),
        ]
        // Only UIDs, strings and small dictionaries: the writer cannot refuse them.
        return (try? PropertyListWriter.binary.write(value)) ?? []
    }

    // MARK: Cases

    /// `$objects[i] = {$class: Foo, next: UID(i+1)}`, the last `next` `$null`; with an
    /// array class, `NS.objects: [UID(i+1)]`, the last one empty.
    static func chain(links: Int, className: String = "Foo") -> [UInt8] {
        let classUID = links + 1
        var objects: [PropertyListValue] = []
        objects.reserveCapacity(links + 1)
        for index in 1...links {
            if className == "NSArray" {
                objects.append(["$class": uid(classUID), "NS.objects": index < links ? [uid(index + 1)] : []])
            } else {
                objects.append(["$class": uid(classUID), "next": uid(index < links ? index + 1 : 0)])
            }
        }
        objects.append(classEntry(className))
        return archive(objects)
    }

    enum FanOut: String, CaseIterable {
        /// `NSArray i = [UID(i+1), UID(i+1)]`.
        case array
        /// `NSDictionary i = {a: UID(i+1), b: UID(i+1)}`.
        case dictionary
        /// `NSSet i = {UID(i+1), UID(i+1)}` (Foundation would merge them; readers must not expand them).
        case set
        /// `Foo i = {left: UID(i+1), right: UID(i+1)}`.
        case object
        /// A plain array entry `[UID(i+1), UID(i+1)]`, no class at all.
        case plainArray
    }

    /// `levels` collections, each holding the next twice: 2^levels paths to the leaf.
    static func fanOut(levels: Int, kind: FanOut) -> [UInt8] {
        // UID levels + 1 is the leaf string.
        let classUID = levels + 2
        let keyA = levels + 3
        let keyB = levels + 4
        var objects: [PropertyListValue] = []
        for index in 1...levels {
            let next = uid(index + 1)
            switch kind {
            case .array, .set: objects.append(["$class": uid(classUID), "NS.objects": [next, next]])
            case .dictionary:
                objects.append([
                    "$class": uid(classUID), "NS.keys": [uid(keyA), uid(keyB)], "NS.objects": [next, next],
                ])
            case .object: objects.append(["$class": uid(classUID), "left": next, "right": next])
            case .plainArray: objects.append([next, next])
            }
        }
        objects.append("leaf")
        let className = ["array": "NSArray", "set": "NSSet", "dictionary": "NSDictionary"][kind.rawValue] ?? "Foo"
        objects += [classEntry(className), "a", "b"]
        return archive(objects)
    }

    /// An object of `className` that holds itself wherever that class holds a reference.
    static func selfCycle(className: String) -> [UInt8] {
        let fields: PropertyListValue
        switch className {
        case "NSString", "NSMutableString": fields = ["NS.string": uid(1)]
        case "NSData", "NSMutableData": fields = ["NS.data": uid(1)]
        case "NSDate": fields = ["NS.time": uid(1)]
        case "NSUUID": fields = ["NS.uuidbytes": uid(1)]
        case "NSURL": fields = ["NS.base": uid(1), "NS.relative": uid(3)]
        case "NSDictionary", "NSMutableDictionary": fields = ["NS.keys": [uid(3)], "NS.objects": [uid(1)]]
        default: fields = ["NS.objects": [uid(1), uid(1)]]
        }
        guard case .dictionary(var object) = fields else { return [] }
        object["$class"] = uid(2)
        return archive([.dictionary(object), classEntry(className), "key"])
    }

    /// An `NSDictionary` that is its own key and value.
    static func dictionaryKeyCycle() -> [UInt8] {
        archive([["$class": uid(2), "NS.keys": [uid(1)], "NS.objects": [uid(1)]], classEntry("NSMutableDictionary")])
    }

    /// `Foo.items` is an array holding the `Foo`.
    static func objectArrayCycle() -> [UInt8] {
        archive([
            ["$class": uid(3), "items": uid(2)], ["$class": uid(4), "NS.objects": [uid(1)]], classEntry("Foo"),
            classEntry("NSArray"),
        ])
    }

    /// Class tables that do not say what the objects are.
    static func classLies() -> [Case] {
        let lies: [(String, [PropertyListValue])] = [
            // $classes claims NSArray; the name decides, so this is a Foo with fields.
            (
                "lie-foo-claims-nsarray",
                [["$class": uid(2), "name": uid(3)], classEntry("Foo", chain: ["NSArray"]), "x"]
            ),
            // Named NSArray, without NS.objects.
            (
                "lie-nsarray-without-objects",
                [["$class": uid(2), "name": uid(3)], classEntry("NSArray", chain: ["Foo"]), "x"]
            ),
            // Named NSDictionary, with more keys than objects.
            (
                "lie-nsdictionary-counts",
                [
                    ["$class": uid(2), "NS.keys": [uid(3), uid(3)], "NS.objects": [uid(3)]], classEntry("NSDictionary"),
                    "x",
                ]
            ),
            // Named NSString, holding a number.
            ("lie-nsstring-number", [["$class": uid(2), "NS.string": 7], classEntry("NSString")]),
            // Named NSArray, holding $null.
            ("lie-nsarray-null-element", [["$class": uid(2), "NS.objects": [uid(0)]], classEntry("NSArray")]),
            // $classes is a string, then a list holding a number.
            ("lie-classes-not-a-list", [["$class": uid(2)], ["$classname": "Foo", "$classes": "Foo"]]),
            ("lie-classes-number", [["$class": uid(2)], ["$classname": "Foo", "$classes": ["Foo", 3]]]),
            // $class points at the object itself, at $null, at a string.
            ("lie-class-is-self", [["$class": uid(1)]]),
            ("lie-class-is-null", [["$class": uid(0)]]),
            ("lie-class-is-string", [["$class": uid(2)], "Foo"]),
            // A field refers to a class description as if it were an object.
            ("lie-field-is-class", [["$class": uid(2), "other": uid(2)], classEntry("Foo")]),
            // A reference past the end of $objects.
            ("lie-uid-out-of-range", [["$class": uid(2), "next": uid(99)], classEntry("Foo")]),
        ]
        return lies.map { Case(name: $0.0, bytes: archive($0.1)) }
    }
}
