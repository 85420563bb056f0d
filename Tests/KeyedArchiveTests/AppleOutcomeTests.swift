import Foundation
import Testing

@testable import KeyedArchive

// The last cases where secure decoding differed from Apple's outcome, one test each,
// named after the rule, with its source:
// - [corelibs]: swift-corelibs-foundation, Sources/Foundation/NSKeyedUnarchiver.swift,
//   where it implements Apple's rule.
// - [Apple docs]: developer.apple.com's pages for the API named.
// - [Foundation]: Apple's Foundation as it behaves and logs (iOS 18 and later).
@Suite struct AppleOutcomeTests {
    typealias B = ArchiveBuilder

    /// An archive whose root is an `Asset` archived under `name`, with `$classes` `chain`
    /// and `$classhints` `hints`.
    static func asset(named name: String, chain: [String], hints: [String]? = nil) -> Data {
        var classEntry: PropertyListDictionary = [
            "$classname": .string(name), "$classes": .array(chain.map { .string($0) }),
        ]
        if let hints { classEntry["$classhints"] = .array(hints.map { .string($0) }) }
        return Data(B.archive(["$null", ["$class": B.uid(3), "label": B.uid(2)], "kept", .dictionary(classEntry)]))
    }

    // MARK: 1. An unknown class is not decoded as a superclass it lists

    // [corelibs] _validateAndMapClassDictionary looks up $classname (the instance's map,
    // the class's map, NSClassFromString), then $classhints, then asks the delegate with
    // $classes as originalClasses; no superclass of $classes is tried. No class: 4864.
    @Test func unknownClassWithAListedSuperclassIsRefused() throws {
        let data = Self.asset(named: "Gone.Dog", chain: ["Gone.Dog", Asset.archiveClassName, "NSObject"])
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: Asset.self, from: data)
        }
        #expect(error?.code == .unknownClass)
        #expect(error?.foundationErrorCode == 4864)
        #expect(error?.className == "Gone.Dog")
    }

    // MARK: 2. $classhints

    // [Apple docs] classFallbacksForKeyedArchiver: "If the class of an object being
    // decoded doesn't exist, the unarchiver uses the first one that does exist as a
    // substitute class"; [corelibs] the hints are tried after $classname, in order.
    @Test func classHintsStandInForAnUnknownClass() throws {
        let data = Self.asset(
            named: "Gone.Dog", chain: ["Gone.Dog", "NSObject"], hints: ["Gone.Animal", Asset.archiveClassName])
        let asset = try KeyedUnarchiver.unarchivedObject(ofClass: Asset.self, from: data)
        #expect(asset?.label == "kept")
        // A hint stands in for the class, and secure decoding still checks what it finds.
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: Folder.self, from: data)
        }
        #expect(error?.code == .typeMismatch)
    }

    // MARK: 3. A subclass that inherits supportsSecureCoding

    // [Apple docs] NSSecureCoding: a class that overrides init(coder:) "must override
    // supportsSecureCoding" itself; [Foundation] refuses it: "Class '%s' has a
    // superclass that supports secure coding, but '%s' overrides -initWithCoder: and does
    // not override +supportsSecureCoding". Swift cannot see the override at run time, so
    // strict mode warns, and the default mode, like before, decodes it.
    @Test func strictModeWarnsAboutAnInheritedSupportsSecureCoding() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Camera(label: "c", megapixels: 12))
        let strict = try KeyedDecoder(forReadingFrom: data)
        strict.refusesWhatAppleWillDisallow = true
        #expect((try strict.decode(Asset.self, forKey: "root") as? Camera)?.megapixels == 12)
        #expect(strict.secureCodingWarnings.map(\.kind) == [.inheritedSecureCoding])
        #expect(strict.secureCodingWarnings.first?.className == Camera.archiveClassName)
        let lenient = try KeyedDecoder(forReadingFrom: data)
        _ = try lenient.decode(Asset.self, forKey: "root")
        #expect(lenient.secureCodingWarnings.isEmpty)
        // The base class answers for itself: no warning.
        let base = try KeyedDecoder(forReadingFrom: KeyedArchiver.archivedData(withRootObject: Asset(label: "a")))
        base.refusesWhatAppleWillDisallow = true
        _ = try base.decode(Asset.self, forKey: "root")
        #expect(base.secureCodingWarnings.isEmpty)
    }

    // MARK: 4. unarchivedObject(ofClass:from:) of a root of another type

    // [Foundation] an inline string, number or data passes secure decoding unlisted with
    // a warning, and the Swift overlay's unarchivedObject(ofClass:from:) returns
    // `result as? DecodedObjectType`: nil, without an error. An object of a class outside
    // the set is still 4864.
    @Test func inlineRootOfAnotherTypeIsNilWithoutAnError() throws {
        let text = try KeyedArchiver.archivedData(withRootObject: "hello")
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Asset.self, from: text) == nil)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [Asset].self, from: text) == nil)
        let number = try KeyedArchiver.archivedData(withRootObject: 42)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: String.self, from: number) == nil)

        let date = try KeyedArchiver.archivedData(withRootObject: Date(timeIntervalSince1970: 0))
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: Asset.self, from: date)
        }
        #expect(error?.foundationErrorCode == 4864)
    }

    // MARK: 5. decodeObject(of:forKey:) of a stored number

    // [Foundation] _decodeOffsetAndRef: a field that is not an object gives nil and the
    // fault "value for key (…) is not an object. This will become an error in the
    // future."; the decode goes on.
    @Test func typedDecodeOfAStoredNumberIsNilAndDecodingGoesOn() throws {
        let encoder = KeyedEncoder()
        encoder.encode(3, forKey: "count")
        encoder.encode("text", forKey: "name")
        let decoder = try KeyedDecoder(forReadingFrom: encoder.encodedData)
        #expect(decoder.decodeObject(of: String.self, forKey: "count") == nil)
        #expect(decoder.error == nil)
        #expect(decoder.decodeObject(of: String.self, forKey: "name") == "text")
        #expect(decoder.decodeInteger(forKey: "count") == 3)
        #expect(decoder.secureCodingWarnings.map(\.kind) == [.nonObjectDecodedAsObject])
        #expect(decoder.secureCodingWarnings.first?.key == "count")
        // A number asked for as a number is still the number.
        #expect(decoder.decodeObject(of: Int.self, forKey: "count") == 3)
        // Strict mode refuses it, as Apple says it will.
        let strict = try KeyedDecoder(forReadingFrom: encoder.encodedData)
        strict.refusesWhatAppleWillDisallow = true
        #expect(strict.decodeObject(of: String.self, forKey: "count") == nil)
        #expect(strict.error?.code == .typeMismatch)
    }

    // MARK: 6. failWithError(_:) with an error of the app's own

    /// Fails with an `NSError` of its own, as ported code does.
    final class Refusing: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        static let reason = NSError(domain: "X", code: 7)
        init() {}
        func encode(with coder: KeyedEncoder) {}
        init?(coder: KeyedDecoder) {
            coder.failWithError(Self.reason)
            return nil
        }
    }

    // [Apple docs] NSCoder.failWithError(_:) takes any Error: "the error provided … will
    // be returned via the outError"; the decode's error is that error.
    @Test func failWithErrorTakesAnyErrorAndHandsItBackUnchanged() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Refusing())
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: Refusing.self, from: data)
        }
        let mine = try #require(error?.underlyingError as? NSError)
        #expect(mine === Refusing.reason)
        #expect(error?.code == .decodingFailed)
        #expect(error?.className == Refusing.archiveClassName)
    }

    // MARK: 7. Cycles

    /// Holds children that read it back with a plain decode, as Objective-C code does.
    final class PlainParent: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        var children: [PlainChild] = []
        init() {}
        func encode(with coder: KeyedEncoder) { coder.encode(children, forKey: "children") }
        init?(coder: KeyedDecoder) throws { children = try coder.decode([PlainChild].self, forKey: "children") }
    }

    final class PlainChild: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        weak var parent: PlainParent?
        init() {}
        func encode(with coder: KeyedEncoder) { coder.encodeConditionalObject(parent, forKey: "parent") }
        init?(coder: KeyedDecoder) { parent = coder.decodeObject(of: PlainParent.self, forKey: "parent") }
    }

    // [Foundation] NSKeyedUnarchiver registers an object before its initWithCoder: runs,
    // so objects that refer to each other decode as a graph. A Swift object exists only
    // once its init(coder:) returns: generic objects (which Keepsake fills after making
    // them) and back references (decodeBackReference) give the graph, through arrays too;
    // a plain decode of an object still being made is `.cycle`, naming the way out.
    @Test func objectsReferringToEachOtherThroughAnArrayDecodeAsAGraph() throws {
        // Typed: a → [b] → a, the back pointer read with decodeBackReference.
        let root = Folder(name: "a", children: [Folder(name: "b")])
        let data = try KeyedArchiver.archivedData(withRootObject: root)
        let folder = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Folder.self, from: data))
        #expect(folder.children.first?.parent === folder)

        // Generic: the same shape with classes no type is given for.
        let generic = B.archive([
            "$null", ["$class": B.uid(4), "children": B.uid(2)],
            ["$class": B.uid(5), "NS.objects": [B.uid(3)]],
            ["$class": B.uid(4), "parent": B.uid(1)],
            B.classEntry("Gone.Folder"), B.classEntry("NSArray"),
        ])
        let top = try KeyedUnarchiver.unarchivedTopLevelObjects(from: Data(generic))
        let a = try #require(top.first?.value as? ArchivedObject)
        let b = try #require((a["children"] as? [Any])?.first as? ArchivedObject)
        #expect(b["parent"] as? ArchivedObject === a)

        // A plain decode of the object being made cannot be given the object.
        let parent = PlainParent()
        let child = PlainChild()
        child.parent = parent
        parent.children = [child]
        let plain = try KeyedArchiver.archivedData(withRootObject: parent)
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: PlainParent.self, from: plain)
        }
        #expect(error?.code == .cycle)
        #expect(error?.message.contains("decodeBackReference") == true, "\(String(describing: error))")
    }
}
