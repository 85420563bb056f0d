import Foundation
import TestSupport
import Testing

@testable import KeyedArchive

/// Every archive of the corpus: Apple's (nibs, xcuserstate files, Foundation fixtures)
/// and other tools' unarchive completely into generic objects; the malformed ones fail
/// with the error that names what is wrong.
struct CorpusArchiveTests {
    static let readable = Corpus.files(under: "archives/apple") + Corpus.files(under: "archives/other")

    @Test(arguments: readable)
    func unarchivesIntoGenericObjects(_ path: String) throws {
        let data = try Corpus.data(path)
        let top = try KeyedUnarchiver.unarchivedTopLevelObjects(from: data)
        #expect(!top.isEmpty, "no $top keys read")
        // Walk the whole graph: every object reachable is filled in, and the count of
        // distinct generic objects equals the number of $objects entries of unknown classes.
        let objects = GraphWalk.objects(from: top.compactMap(\.value))
        #expect(objects.allSatisfy { !$0.classChain.isEmpty })
        #expect(
            objects.count == (try Self.reachableUnknownInstances(data)), "every object of an unknown class decodes once"
        )
    }

    /// Objects of classes that are not Foundation value classes and are reachable from
    /// `$top`, counted by walking the raw property list's UIDs (independently of the
    /// unarchiver).
    static func reachableUnknownInstances(_ data: Data) throws -> Int {
        let plist = try PropertyListReader().read(data)
        guard case .array(let objects)? = plist["$objects"], let top = plist["$top"] else { return -1 }
        var visited = Set<UInt64>()
        var count = 0
        var pending = [top]
        while let value = pending.popLast() {
            switch value {
            case .uid(let uid) where uid.value != 0 && visited.insert(uid.value).inserted:
                let object = objects[Int(uid.value)]
                if case .uid(let classUID)? = object["$class"],
                    case .string(let name)? = objects[Int(classUID.value)]["$classname"],
                    FoundationClass(className: name) == nil
                {
                    count += 1
                }
                pending.append(object)
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let dictionary):
                pending.append(contentsOf: dictionary.filter { $0.key != "$class" }.map(\.value))
            default: break
            }
        }
        return count
    }

    @Test(arguments: readable)
    func genericObjectsArchiveAgainUnchanged(_ path: String) throws {
        let top = try KeyedUnarchiver.unarchivedTopLevelObjects(from: Corpus.data(path))
        let encoder = KeyedEncoder()
        for (key, value) in top { encoder.encode(value, forKey: key) }
        let again = try KeyedUnarchiver.unarchivedTopLevelObjects(from: encoder.encodedData)
        #expect(again.map(\.key) == top.map(\.key))
        let before = GraphWalk.objects(from: top.compactMap(\.value))
        let after = GraphWalk.objects(from: again.compactMap(\.value))
        #expect(before.count == after.count)
        #expect(Set(before.map(\.className)) == Set(after.map(\.className)))
        #expect(before.map { $0.fields.count }.sorted() == after.map { $0.fields.count }.sorted())
    }

    static let malformed: [(file: String, code: KeyedArchiveError.Code)] = [
        ("invalid_type_archive.plist", .unsupportedArchiver),
        ("invalid_uid_archive.plist", .uidOutOfRange),
        ("invalid_version_archive.plist", .unsupportedVersion),
        ("missing_uid_archive.plist", .invalidObject),
        ("no_class_meta_archive.plist", .invalidClassTable),
        ("no_class_name_archive.plist", .invalidClassTable),
        ("no_objects_archive.plist", .missingObjects),
        ("no_top_archive.plist", .missingTop),
    ]

    @Test(.requiresCorpus) func everyMalformedFileHasAnExpectation() {
        let files = Corpus.files(under: "archives/malformed").map { ($0 as NSString).lastPathComponent }
        #expect(Set(files) == Set(Self.malformed.map(\.file)))
    }

    @Test(.requiresCorpus, arguments: malformed)
    func malformedArchiveFailsWithItsCode(_ file: String, _ code: KeyedArchiveError.Code) throws {
        let data = try Corpus.data("archives/malformed/bpylist2/" + file)
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedTopLevelObjects(from: data)
        }
        #expect(error?.code == code, "\(error.map(String.init(describing:)) ?? "no error")")
    }
}
