import Foundation
import Testing

@testable import KeyedArchive

#if canImport(Glibc)
import Glibc
#endif

// Apple's secure-coding rules, one test each, named after the rule. Sources, cited in
// each test:
// - [NSCoder.h] / [NSKeyedArchiver.h]: Apple's SDK headers, mirrored on
//   developer.apple.com (decodeObject(of:forKey:), decodeArrayOfObjects(ofClasses:forKey:),
//   NSCoder.error, failWithError(_:), unarchivedObject(ofClasses:from:)).
// - [Foundation]: messages and behaviour of Apple's Foundation (iOS 18), as its
//   NSKeyedUnarchiver and NSCoder log them and as developers' reports quote them
//   (GoogleUtilities issue 153, MJExtension PR 867, dropbox-sdk-obj-c issue 342).
// - [GNUstep]: libs-base Tests/base/NSKeyedArchiver/secure_coding.m (PR 686, 2026),
//   checked against Foundation on macOS.
@Suite struct SecureCodingRuleTests {
    // MARK: Models

    /// Reads its fields the way the books do, with `decodeObject(forKey:)`.
    final class Holder: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        var date: Date?
        var note: String?
        init(date: Date?, note: String?) {
            self.date = date
            self.note = note
        }
        func encode(with coder: KeyedEncoder) {
            coder.encode(date, forKey: "date")
            coder.encode(note, forKey: "note")
        }
        init?(coder: KeyedDecoder) {
            date = coder.decodeObject(forKey: "date") as? Date
            note = coder.decodeObject(forKey: "note") as? String
        }
    }

    /// Reads its date with a list of its own (or, with `list` nil, the enclosing one).
    /// Reads its date with the list `[NSDate.self]`.
    final class Listing: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        var date: Date?
        init(date: Date) { self.date = date }
        func encode(with coder: KeyedEncoder) { coder.encode(date, forKey: "date") }
        init?(coder: KeyedDecoder) {
            date = coder.decodeObject(of: [NSDate.self], forKey: "date") as? Date
        }
    }

    /// Reads its date with no list (`of: nil`). A type of its own rather than a list
    /// the tests set: tests run at once, and one test's list would be another's.
    final class UnlistedListing: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        var date: Date?
        init(date: Date) { self.date = date }
        func encode(with coder: KeyedEncoder) { coder.encode(date, forKey: "date") }
        init?(coder: KeyedDecoder) {
            let noList: [Any.Type]? = nil
            date = coder.decodeObject(of: noList, forKey: "date") as? Date
        }
    }

    /// Reads the same object twice, under two different lists.
    final class Twice: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        let asset: Asset
        init(asset: Asset) { self.asset = asset }
        func encode(with coder: KeyedEncoder) {
            coder.encode(asset, forKey: "first")
            coder.encode(asset, forKey: "second")
        }
        init?(coder: KeyedDecoder) throws {
            guard let first = coder.decodeObject(of: [Asset.self], forKey: "first") as? Asset else { return nil }
            asset = first
            _ = coder.decodeObject(of: [Folder.self], forKey: "second")
        }
    }

    /// Adopts only KeyedCoding: Apple's NSCoding without NSSecureCoding.
    final class Insecure: KeyedCoding {
        init() {}
        func encode(with coder: KeyedEncoder) {}
        init?(coder: KeyedDecoder) {}
    }

    /// A subclass that withdraws its superclass's support.
    final class Withdrawn: Asset {
        override class var supportsSecureCoding: Bool { false }
    }

    /// Fails with an error of its own.
    final class Failing: KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        static let reason = KeyedArchiveError(.invalidObject, "the label is not a label", keyPath: "label")
        init() {}
        func encode(with coder: KeyedEncoder) { coder.encode(1, forKey: "label") }
        init?(coder: KeyedDecoder) {
            coder.failWithError(Self.reason)
            coder.failWithError(KeyedArchiveError(.typeMismatch, "a second failure"))
            return nil
        }
    }

    /// An NSObject subclass, as Apple's Swift classes are.
    final class Widget: NSObject, KeyedSecureCoding {
        static var supportsSecureCoding: Bool { true }
        override init() {}
        func encode(with coder: KeyedEncoder) {}
        init?(coder: KeyedDecoder) {}
    }

    static func decoder(_ root: Any) throws -> KeyedDecoder {
        try KeyedDecoder(forReadingFrom: KeyedArchiver.archivedData(withRootObject: root))
    }

    static func refusal(_ root: Any, allowing types: [Any.Type]) throws -> KeyedArchiveError? {
        let data = try KeyedArchiver.archivedData(withRootObject: root)
        return #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClasses: types, from: data)
        }
    }

    // MARK: 1. The allowed-classes set of each decode

    // [NSCoder.h] decodeObject(of:forKey:): the class of the decoded object must be in the
    // set; [Foundation] the set is pushed for the subtree, so what init(coder:) reads with
    // decodeObject(forKey:) is checked against it (dropbox-sdk-obj-c issue 342: a string
    // inside DBAccessToken is checked against {DBAccessToken}).
    @Test func typedDecodeNarrowsTheSetForWhatItReadsInside() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Holder(date: Date(), note: nil))
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: Holder.self, from: data)
        }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.className == "NSDate")
        #expect(error?.keyPath == "root.date")
        #expect(error?.message.hasPrefix("value for key 'date' was of unexpected class 'NSDate'.") == true)
    }

    // [Foundation] decodeObject(forKey:) pushes nothing: it inherits the enclosing set.
    @Test func untypedDecodeInheritsTheEnclosingSet() throws {
        let data = try KeyedArchiver.archivedData(
            withRootObject: Holder(date: Date(timeIntervalSince1970: 5), note: nil))
        let holder = try KeyedUnarchiver.unarchivedObject(ofClasses: [Holder.self, NSDate.self], from: data) as? Holder
        #expect(holder?.date == Date(timeIntervalSince1970: 5))
    }

    // [Foundation] a nested decodeObject(of:forKey:) replaces the set rather than
    // intersecting with it, so it can widen it (GNUstep saves and restores it the same way).
    @Test func nestedListReplacesTheSetInsteadOfNarrowingIt() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Listing(date: Date(timeIntervalSince1970: 9)))
        let listing = try KeyedUnarchiver.unarchivedObject(ofClasses: [Listing.self], from: data) as? Listing
        #expect(listing?.date == Date(timeIntervalSince1970: 9))
    }

    // [Foundation] decodeObject(of: nil, forKey:) is decodeObject(forKey:): the enclosing
    // set stays in force.
    @Test func nilClassListKeepsTheEnclosingSet() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: UnlistedListing(date: Date()))
        #expect(
            try Self.refusal(UnlistedListing(date: Date()), allowing: [UnlistedListing.self])?.className == "NSDate")
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClasses: [UnlistedListing.self, NSDate.self], from: data)
                is UnlistedListing)
    }

    // [Foundation] with no set at all, every object with a class is refused; the message
    // names the empty set.
    @Test func emptySetRefusesEveryObject() throws {
        let decoder = try Self.decoder([1, 2])
        let error = #expect(throws: KeyedArchiveError.self) { try decoder.decodeTopLevelObject(forKey: "root") }
        #expect(error?.message == "value for key 'root' was of unexpected class 'NSArray'. Allowed classes are: {()}")
    }

    // MARK: 2. Subclasses and NSSecureCoding

    // [NSCoder.h] "The class of the object may be any class in the provided NSSet, or a
    // subclass of any class in the set."
    @Test func subclassOfAListedClassIsAllowed() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [
            Asset(label: "a"), Camera(label: "c", megapixels: 2),
        ])
        let assets = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Asset.self, from: data)
        #expect(assets?.count == 2)
        #expect((assets?.last as? Camera)?.megapixels == 2)
        let untyped = try KeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, Asset.self], from: data) as? [Any]
        #expect(untyped?.last is Camera)
    }

    // [Foundation] validateClassSupportsSecureCoding: "This decoder will only decode
    // classes that adopt NSSecureCoding. Class '%s' does not adopt it."
    @Test func classThatAdoptsOnlyKeyedCodingIsRefused() throws {
        let error = try Self.refusal(Insecure(), allowing: [Insecure.self])
        #expect(error?.code == .classNotAllowed)
        #expect(error?.message.hasPrefix("This decoder will only decode classes that adopt NSSecureCoding") == true)
        let typed = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(
                ofClass: Insecure.self, from: KeyedArchiver.archivedData(withRootObject: Insecure()))
        }
        #expect(typed?.code == .classNotAllowed)
        // Insecure decoding, the books' unarchiveObject(with:), still reads it.
        #expect(
            try KeyedUnarchiver.unarchiveObject(with: KeyedArchiver.archivedData(withRootObject: Insecure()))
                is Insecure)
    }

    // [Foundation] "Class '%s' disallows secure coding. It must return YES from
    // supportsSecureCoding." A subclass's own answer counts.
    @Test func subclassThatDisallowsSecureCodingIsRefused() throws {
        let error = try Self.refusal(Withdrawn(label: "w"), allowing: [Asset.self])
        #expect(
            error?.message.contains("disallows secure coding. It must return YES from supportsSecureCoding") == true)
    }

    // [Foundation] membership is checked before NSSecureCoding: an unlisted class that
    // also lacks it reports "unexpected class".
    @Test func membershipIsCheckedBeforeSecureCoding() throws {
        let error = try Self.refusal(Insecure(), allowing: [Asset.self])
        #expect(error?.message.hasPrefix("value for key 'root' was of unexpected class") == true)
    }

    // MARK: 3. Inline primitives, containers, NSObject

    // [Foundation] validateAllowedClass:forKey: "allowed unarchiving safe plist type
    // ''NSString'' for key 'NS.objects', even though it was not explicitly included in the
    // client allowed classes set … This will be disallowed in the future." (GoogleUtilities
    // issue 153). The value is returned; the warning is given once per key and class.
    @Test func inlineStringNumberAndDataPassUnlistedWithAWarning() throws {
        let decoder = try Self.decoder([["a", "b"], ["c"]] as [Any])
        decoder.allowClasses([NSArray.self])
        #expect(try decoder.decodeTopLevelObject(forKey: "root") as? [[String]] == [["a", "b"], ["c"]])
        #expect(decoder.secureCodingWarnings.count == 1)
        let warning = try #require(decoder.secureCodingWarnings.first)
        #expect(warning.kind == .unlistedInlineValue)
        #expect(warning.key == "NS.objects")
        #expect(warning.className == "NSString")
        #expect(warning.description.hasPrefix("allowed unarchiving safe plist type 'NSString' for key 'NS.objects'"))
        #expect(warning.description.hasSuffix("This will be disallowed in the future."))
        let numbers = try Self.decoder([1.5, Data([1])] as [Any])
        numbers.allowClasses([NSArray.self, NSNumber.self])
        _ = try numbers.decodeTopLevelObject(forKey: "root")
        #expect(numbers.secureCodingWarnings.map(\.className) == ["NSData"])
    }

    /// What `body` writes to standard error (the descriptor, for the length of the call).
    static func standardError(during body: () throws -> Void) throws -> String {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let saved = dup(STDERR_FILENO)
        dup2(ends[1], STDERR_FILENO)
        close(ends[1])
        let outcome = Result { try body() }
        // Standard error back: the pipe's last writer is gone, so it reads to its end.
        dup2(saved, STDERR_FILENO)
        close(saved)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = read(ends[0], &buffer, buffer.count), count > 0 { output += buffer[..<count] }
        close(ends[0])
        try outcome.get()
        return String(decoding: output, as: UTF8.self)
    }

    // [Foundation] the console line, as os_log prints it here: at the fault level, once
    // per process for each warning (a key no other test uses, so this one logs it first).
    @Test func warningsAreLoggedOncePerProcessOnStandardError() throws {
        let key = "note-\(UUID().uuidString)"
        let encoder = KeyedEncoder()
        encoder.encode("text", forKey: key)
        let data = try encoder.encodedData
        let logged = try Self.standardError {
            for _ in 0..<3 {
                let decoder = try KeyedDecoder(forReadingFrom: data)
                #expect(try decoder.decodeTopLevelObject(forKey: key) as? String == "text")
                #expect(decoder.secureCodingWarnings.count == 1)
            }
        }
        let lines = logged.split(separator: "\n").filter { $0.contains(key) }
        #expect(
            lines == [
                "[fault] Keepsake/KeyedDecoder: allowed unarchiving safe plist type 'NSString' for key '\(key)', even "
                    + "though it was not explicitly included in the client allowed classes set: '{()}'. This will be "
                    + "disallowed in the future."
            ])
    }

    // [Foundation] NSKeyedArchiver writes only NSString, NSNumber and NSData inline;
    // NSArray, NSDictionary, NSSet and NSDate are objects with a class, which must be
    // listed (GNUstep secure_coding.m, checked on macOS; NSDate is archived as NS.time).
    enum ObjectWithAClass: String, CaseIterable, Sendable {
        case NSArray, NSDictionary, NSSet, NSDate

        var root: Any {
            switch self {
            case .NSArray: [1]
            case .NSDictionary: ["k": 1]
            case .NSSet: Set([1])
            case .NSDate: Date()
            }
        }
    }

    @Test(arguments: ObjectWithAClass.allCases)
    func containersAndDatesMustBeListed(_ object: ObjectWithAClass) throws {
        let root = object.root
        let error = try Self.refusal(root, allowing: [NSString.self, NSNumber.self])
        #expect(error?.className == object.rawValue)
        #expect(error?.foundationErrorCode == 4864)
        let data = try KeyedArchiver.archivedData(withRootObject: root)
        let listed: [Any.Type] = [
            NSArray.self, NSDictionary.self, NSSet.self, NSDate.self, NSString.self, NSNumber.self,
        ]
        #expect(try KeyedUnarchiver.unarchivedObject(ofClasses: listed, from: data) != nil)
    }

    // [Foundation] "NSSecureCoding allowed classes list contains [NSObject class], which
    // bypasses security by allowing any Objective-C class to be implicitly decoded … This
    // will become an error in the future."
    @Test func listingNSObjectAllowsEverythingWithAWarning() throws {
        let decoder = try Self.decoder([Asset(label: "a")])
        decoder.allowClasses([NSObject.self])
        #expect((try decoder.decodeTopLevelObject(forKey: "root") as? [Any])?.first is Asset)
        #expect(decoder.secureCodingWarnings.contains { $0.kind == .nsObjectListed })
        #expect(
            decoder.secureCodingWarnings.first?.description.contains(
                "NSSecureCoding allowed classes list contains [NSObject class]") == true)
    }

    // MARK: 4. Objects met again, renamed classes, lookup

    // [Foundation] _decodeObjectReference: an object decoded before is checked again,
    // by its class, against the set in force where it is met again.
    @Test func cachedObjectIsCheckedAgainstTheCurrentSet() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Twice(asset: Asset(label: "shared")))
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: Twice.self, from: data)
        }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.keyPath == "root.second")
    }

    // [Foundation] the class checked is the one found after renaming (setClass), not the
    // archived name.
    @Test func renamedClassIsCheckedAsTheClassFound() throws {
        let encoder = KeyedEncoder()
        encoder.setClassName("Contacts.Person", for: Asset.self)
        encoder.encode(Asset(label: "a"), forKey: "root")
        let data = try encoder.encodedData
        let renamed = try KeyedDecoder(forReadingFrom: data)
        renamed.setClass(Asset.self, forClassName: "Contacts.Person")
        #expect(throws: KeyedArchiveError.self) { try renamed.decodeTopLevelObject(forKey: "root") }
        let allowed = try KeyedDecoder(forReadingFrom: data)
        allowed.setClass(Asset.self, forClassName: "Contacts.Person")
        allowed.allowClasses([Asset.self])
        #expect((try allowed.decodeTopLevelObject(forKey: "root") as? Asset)?.label == "a")
    }

    final class Guesser: KeyedDecoderDelegate {
        var asked: [String] = []
        func unarchiver(
            _ unarchiver: KeyedDecoder, cannotDecodeObjectOfClassName name: String, originalClasses: [String]
        )
            -> (any KeyedCoding.Type)?
        {
            asked.append(name)
            return Asset.self
        }
    }

    // [Foundation] lookup order: this decoder's map, the process's map, the name, then
    // the delegate's unarchiver(_:cannotDecodeObjectOfClassName:originalClasses:); the
    // class it returns is checked like any other.
    @Test func delegateIsAskedLastAndItsAnswerIsChecked() throws {
        let encoder = KeyedEncoder()
        encoder.setClassName("Gone.Thing", for: Asset.self)
        encoder.encode(Asset(label: "g"), forKey: "root")
        let data = try encoder.encodedData
        let guesser = Guesser()
        let refused = try KeyedDecoder(forReadingFrom: data)
        refused.delegate = guesser
        #expect(throws: KeyedArchiveError.self) { try refused.decodeTopLevelObject(forKey: "root") }
        #expect(guesser.asked == ["Gone.Thing"])
        let allowed = try KeyedDecoder(forReadingFrom: data)
        allowed.delegate = guesser
        allowed.allowClasses([Asset.self])
        #expect((try allowed.decodeTopLevelObject(forKey: "root") as? Asset)?.label == "g")
        // This decoder's map answers before the process's, and either before the delegate.
        KeyedUnarchiver.setClass(Folder.self, forClassName: "Gone.Thing")
        defer { KeyedUnarchiver.setClass(nil, forClassName: "Gone.Thing") }
        let mapped = try KeyedDecoder(forReadingFrom: data)
        let silent = Guesser()
        mapped.delegate = silent
        mapped.setClass(Asset.self, forClassName: "Gone.Thing")
        mapped.allowClasses([Asset.self])
        #expect((try mapped.decodeTopLevelObject(forKey: "root") as? Asset)?.label == "g")
        #expect(silent.asked.isEmpty)
    }

    // MARK: 5. Errors

    // [NSCoder.h] failWithError(_:): "the error provided … will be returned via the
    // outError" unchanged; the first error sticks, later ones have no effect.
    @Test func errorPassedToFailWithErrorIsHandedBackUnchanged() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Failing())
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: Failing.self, from: data)
        }
        #expect(error?.code == Failing.reason.code)
        #expect(error?.message == Failing.reason.message)
        #expect(error?.keyPath == "root.label")
    }

    // [NSCoder.h] NSCoder.error: "While .error is non-nil, all attempts to decode data
    // from this coder will return a nil/zero-equivalent value" (.setErrorAndReturn, which
    // Foundation's spellings follow; the throwing Swift calls stop at once, as
    // .raiseException does).
    @Test func firstErrorSticksAndLaterDecodesReturnNilOrZero() throws {
        let encoder = KeyedEncoder()
        encoder.encode([1], forKey: "array")
        encoder.encode(7, forKey: "number")
        encoder.encode("text", forKey: "string")
        let decoder = try KeyedDecoder(forReadingFrom: encoder.encodedData)
        #expect(decoder.decodeObject(forKey: "array") == nil)
        let first = try #require(decoder.error)
        #expect(decoder.decodeInteger(forKey: "number") == 0)
        #expect(decoder.decodeObject(forKey: "string") == nil)
        #expect(decoder.error?.message == first.message)
        #expect(throws: KeyedArchiveError.self) { try decoder.decode(Int.self, forKey: "missing") }
    }

    // [Foundation] unknown class: 4864 (NSCoderReadCorruptError), before any allowed-class check.
    @Test func unknownClassIsReadCorrupt() throws {
        let encoder = KeyedEncoder()
        encoder.setClassName("Nowhere.Thing", for: Asset.self)
        encoder.encode(Asset(label: "x"), forKey: "root")
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self], from: encoder.encodedData)
        }
        #expect(error?.code == .unknownClass)
        #expect(error?.foundationErrorCode == 4864)
    }

    // [Foundation] _decodeOffsetAndRef: decodeObject(forKey:) of an inline integer
    // returns nil without an error and logs "value for key (count) is not an object.
    // This will become an error in the future."
    @Test func decodeObjectOfAnInlineNumberIsNilWithAWarning() throws {
        let encoder = KeyedEncoder()
        encoder.encode(3, forKey: "count")
        let decoder = try KeyedDecoder(forReadingFrom: encoder.encodedData)
        #expect(decoder.decodeObject(forKey: "count") == nil)
        #expect(decoder.error == nil)
        #expect(decoder.decodeInteger(forKey: "count") == 3)
        #expect(decoder.secureCodingWarnings.map(\.kind) == [.nonObjectDecodedAsObject])
        #expect(
            decoder.secureCodingWarnings.first?.description
                == "decodeObject(forKey:): value for key (count) is not an object. This will become an error in the future."
        )
    }

    // MARK: 6. The collection calls

    // [NSCoder.h] decodeArrayOfObjects(ofClasses:forKey:): "Requires NSSecureCoding
    // otherwise an exception is thrown"; [Foundation] "This method only supports secure coding."
    @Test func collectionCallsRequireSecureCoding() throws {
        let encoder = KeyedEncoder()
        encoder.encode(["a"], forKey: "array")
        encoder.encode(["k": "v"], forKey: "dictionary")
        let decoder = try KeyedDecoder(forReadingFrom: encoder.encodedData)
        decoder.requiresSecureCoding = false
        #expect(decoder.decodeArrayOfObjects(ofClass: String.self, forKey: "array") == nil)
        #expect(decoder.error?.code == .secureCodingRequired)
        #expect(decoder.error?.message.hasSuffix("This method only supports secure coding.") == true)
        let dictionaries = try KeyedDecoder(forReadingFrom: encoder.encodedData)
        dictionaries.requiresSecureCoding = false
        _ = dictionaries.decodeDictionary(
            withKeysOfClass: String.self, objectsOfClass: String.self, forKey: "dictionary")
        #expect(dictionaries.error?.code == .secureCodingRequired)
    }

    // [Foundation] the collection calls allow the container class with the element
    // classes (classes ∪ {NSArray}), and refuse element classes that are collections:
    // "This method only supports decoding non-nested collections."
    @Test func collectionCallsAllowTheContainerAndRefuseNestedCollections() throws {
        let encoder = KeyedEncoder()
        encoder.encode([Asset(label: "a")], forKey: "assets")
        encoder.encode([["x"]], forKey: "nested")
        let decoder = try KeyedDecoder(forReadingFrom: encoder.encodedData)
        #expect(decoder.decodeArrayOfObjects(ofClass: Asset.self, forKey: "assets")?.first?.label == "a")
        #expect(decoder.decodeArrayOfObjects(ofClass: [String].self, forKey: "nested") == nil)
        #expect(decoder.error?.message.hasPrefix("This method only supports decoding non-nested collections") == true)
    }

    // [Foundation] in a collection call, the container is the one collection: a second
    // one anywhere below it fails, "value for key (NS.objects) contains too many nested
    // (NSArray)s" (_decodeObjectBinary, expectsUnnestedCollection). A typed array,
    // Keepsake's own call, has no such rule.
    @Test func collectionCallsRefuseACollectionBelowTheirOwn() throws {
        let folders = [Folder(name: "a", children: [Folder(name: "b")])]
        let data = try KeyedArchiver.archivedData(withRootObject: folders)
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Folder.self, from: data)
        }
        #expect(error?.message.contains("contains too many nested (NSArray)s") == true)
        #expect(error?.code == .classNotAllowed)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [Folder].self, from: data)?.first?.children.count == 1)
        #expect(error?.keyPath == "root[0].children")
        let flat = try KeyedArchiver.archivedData(withRootObject: [Asset(label: "c")])
        #expect(try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Asset.self, from: flat)?.first?.label == "c")
    }

    // MARK: 7. Strict mode and the wire format

    // Keepsake's strict mode refuses what Apple says "will be disallowed in the future",
    // and only that: listed classes still decode.
    @Test func strictModeRefusesWhatTheWarningsName() throws {
        let strings = try Self.decoder(["a"])
        strings.refusesWhatAppleWillDisallow = true
        strings.allowClasses([NSArray.self])
        let unlisted = #expect(throws: KeyedArchiveError.self) { try strings.decodeTopLevelObject(forKey: "root") }
        #expect(unlisted?.code == .classNotAllowed)
        let listed = try Self.decoder(["a"])
        listed.refusesWhatAppleWillDisallow = true
        listed.allowClasses([NSArray.self, NSString.self])
        #expect(try listed.decodeTopLevelObject(forKey: "root") as? [String] == ["a"])
        #expect(listed.secureCodingWarnings.isEmpty)
        let everything = try Self.decoder([Asset(label: "a")])
        everything.refusesWhatAppleWillDisallow = true
        everything.allowClasses([NSObject.self])
        #expect(throws: KeyedArchiveError.self) { try everything.decodeTopLevelObject(forKey: "root") }
        let encoder = KeyedEncoder()
        encoder.encode(3, forKey: "count")
        let numbers = try KeyedDecoder(forReadingFrom: encoder.encodedData)
        numbers.refusesWhatAppleWillDisallow = true
        #expect(numbers.decodeObject(forKey: "count") == nil)
        #expect(numbers.error?.code == .typeMismatch)
    }

    // [Foundation] an NSObject subclass's $classes is its chain up to and including
    // NSObject, by its Objective-C name: ["MyApp.Item", "NSObject"] (swift-corelibs-dev,
    // December 2015, Apple's output for a Swift class).
    @Test func nsObjectSubclassWritesItsChainEndingInNSObject() throws {
        let tree = try PropertyListReader().read(KeyedArchiver.archivedData(withRootObject: Widget()))
        let chains = tree["$objects"]?.arrayValue?.compactMap { $0["$classes"]?.arrayValue?.compactMap(\.stringValue) }
        #expect(chains == [[Widget.archiveClassName, "NSObject"]])
    }
}
