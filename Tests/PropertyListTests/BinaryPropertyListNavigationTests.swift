import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// The lazy document: key paths, kinds and containers answered from a binary plist
/// without building its tree, and always the same answers as the full reader.
struct BinaryPropertyListNavigationTests {
    static let inventory: PropertyListValue = [
        "items": [
            ["name": "Rusty Spork", "valueInDollars": 42, "photo": .data(Data([1, 2, 3]))],
            ["name": "Shiny Bear", "valueInDollars": 7, "tags": ["a", "b"]],
        ],
        "owner.name": "Joe",
        "count": 2,
        "Ünïcode key": true,
    ]

    @Test(arguments: [
        ("items.1.name", "Shiny Bear" as PropertyListValue?),
        ("items.0.valueInDollars", 42),
        ("items.1.tags.1", "b"),
        ("owner\\.name", "Joe"),
        ("Ünïcode key", true),
        ("items.2", nil),
        ("items.-1", nil),
        ("items.x", nil),
        ("count.0", nil),
        ("owner.name", nil),
        ("", nil),
        ("items..name", nil),
    ])
    func keyPathsFindWhatTheTreeHolds(path: String, expected: PropertyListValue?) throws {
        let plist = try BinaryPropertyList(bytes: PropertyListWriter.binary.write(Self.inventory))
        #expect(try plist.value(at: PropertyListKeyPath(path)) == expected)
        #expect(Self.inventory.value(at: PropertyListKeyPath(path)) == expected)
    }

    @Test func keyPathComponentsFollowPlutilsEscapes() {
        #expect(PropertyListKeyPath("a.b").components == ["a", "b"])
        #expect(PropertyListKeyPath("a\\.b.c").components == ["a.b", "c"])
        #expect(PropertyListKeyPath("a\\b").components == ["a\\b"])
        #expect(PropertyListKeyPath("").components == [""])
        #expect(PropertyListKeyPath(components: ["a.b", "c"]).description == "a\\.b.c")
    }

    @Test func kindsAndContainersAreReadWithoutTheTree() throws {
        let plist = try BinaryPropertyList(bytes: PropertyListWriter.binary.write(Self.inventory))
        let items = try #require(try plist.objectIndex(at: "items"))
        #expect(try plist.kind(ofObject: items) == .array)
        let elements = try #require(try plist.elements(ofArray: items))
        #expect(elements.count == 2)
        #expect(try plist.entries(ofDictionary: items) == nil)
        let second = try #require(try plist.entries(ofDictionary: elements[1]))
        var keys: [PropertyListValue] = []
        for key in second.keys { keys.append(try plist.value(at: key)) }
        #expect(Set(keys.compactMap(\.stringValue)) == ["name", "valueInDollars", "tags"])
        let photo = try #require(try plist.objectIndex(at: "items.0.photo"))
        #expect(try plist.kind(ofObject: photo) == .data)
        #expect(try plist.elements(ofArray: photo) == nil)
    }

    /// A key stored twice: the full reader keeps the later value, and so does lookup.
    @Test func aRepeatedKeyFindsTheLaterValue() throws {
        let bytes = BinaryPlistBytes.build(objects: [
            [0xD2, 1, 1, 2, 3],  // dictionary of two entries, both keyed by object 1
            [0x51, UInt8(ascii: "k")],
            [0x10, 1],
            [0x10, 2],
        ])
        let plist = try BinaryPropertyList(bytes: bytes)
        #expect(try plist.value(at: "k") == 2)
        #expect(try PropertyListReader().read(bytes)["k"] == 2)
    }

    /// Keys compare as Swift strings do: a stored Kelvin sign is found as `K`, as the
    /// full reader's dictionary finds it.
    @Test func keysCompareCanonically() throws {
        let plist = try BinaryPropertyList(bytes: PropertyListWriter.binary.write(["\u{212A}": 1]))
        #expect(try plist.value(at: "K") == 1)
        #expect(try PropertyListReader().read(PropertyListWriter.binary.write(["\u{212A}": 1]))["K"] == 1)
    }

    /// Many entries keyed by one long key object: each key object is compared once, so
    /// the lookup costs the file, not the file times the entries.
    @Test func aKeySharedByManyEntriesIsComparedOnce() throws {
        let keyLength = 100_000
        let entries = 20_000
        // Object 0: the dictionary; 1: the key; 2…: one value per entry. References
        // and offsets are 4 bytes wide.
        var dictionary: [UInt8] = [0xDF, 0x12] + withUnsafeBytes(of: UInt32(entries).bigEndian, Array.init)
        for _ in 0..<entries { dictionary += withUnsafeBytes(of: UInt32(1).bigEndian, Array.init) }
        for entry in 0..<entries { dictionary += withUnsafeBytes(of: UInt32(2 + entry).bigEndian, Array.init) }
        let key: [UInt8] =
            [0x5F, 0x12] + withUnsafeBytes(of: UInt32(keyLength).bigEndian, Array.init)
            + [UInt8](repeating: UInt8(ascii: "k"), count: keyLength)
        let values = (0..<entries).map { _ in [UInt8]([0x10, 7]) }
        let bytes = BinaryPlistBytes.build(
            objects: [dictionary, key] + values, offsetSize: 4, referenceSize: 4)
        let plist = try BinaryPropertyList(bytes: bytes)
        let wanted = String(repeating: "k", count: keyLength)
        let start = ContinuousClock.now
        let found = try plist.objectIndex(forKey: wanted, inDictionary: 0)
        #expect(found == 2 + entries - 1, "the later entry counts")
        #expect(ContinuousClock.now - start < .seconds(2), "one comparison per key object, not per entry")
    }

    @Test func aNonStringKeyOnTheWayIsAnError() throws {
        let bytes = BinaryPlistBytes.build(objects: [[0xD1, 1, 2], [0x10, 1], [0x10, 2]])
        let error = #expect(throws: PropertyListError.self) { try BinaryPropertyList(bytes: bytes).value(at: "1") }
        #expect(error?.code == .invalidObject)
        #expect(throws: PropertyListError.self) { try PropertyListReader().read(bytes) }
    }

    @Test func anElementReferencePastTheTableIsAnError() throws {
        let bytes = BinaryPlistBytes.build(objects: [[0xA2, 1, 9], [0x10, 1]])
        let plist = try BinaryPropertyList(bytes: bytes)
        let error = #expect(throws: PropertyListError.self) { try plist.elements(ofArray: 0) }
        #expect(error?.code == .referenceOutOfRange)
        #expect(try plist.value(at: "0") == 1)
        #expect(throws: PropertyListError.self) { try plist.value(at: "1") }
    }

    /// Every key path of every binary plist and archive in the corpus leads the lazy
    /// document to the same value the full reader finds there, whether the document is
    /// in memory or read a byte at a time.
    @Test(.requiresCorpus) func everyCorpusKeyPathAgreesWithTheFullRead() throws {
        var checked = 0
        for file in Self.binaryCorpusFiles() {
            let bytes = try Corpus.bytes(file)
            guard let tree = try? PropertyListReader().read(bytes) else { continue }
            let plist = try BinaryPropertyList(bytes: bytes)
            let paged = try BinaryPropertyList(reading: CountingSource(bytes), limits: .default, pageSize: 1)
            for path in Self.keyPaths(in: tree, limit: 300) {
                let lazy = try plist.value(at: path)
                #expect(lazy == tree.value(at: path), "\(file): \(path)")
                #expect(try paged.value(at: path) == lazy, "\(file): \(path), read a byte at a time")
                if let index = try plist.objectIndex(at: path) {
                    #expect(try plist.kind(ofObject: index) == tree.value(at: path)?.kind, "\(file): \(path)")
                }
                checked += 1
            }
            #expect(try plist.value(at: "no such key.0") == nil)
        }
        #expect(checked > 1_000)
    }

    /// A document read piece by piece reads the pages its answer needs, not the file;
    /// the whole tree below an element reads that element's objects.
    @Test func aDocumentReadOnDemandReadsLittleOfALargeFile() throws {
        let records: PropertyListValue = .array(
            (0..<20_000).map { ["name": .string("item \($0)"), "valueInDollars": .integer(Int64($0))] })
        let source = CountingSource(try PropertyListWriter.binary.write(records))
        let plist = try BinaryPropertyList(reading: source)
        let opened = source.bytesGiven
        #expect(try plist.value(at: "12345.name") == "item 12345")
        #expect(try plist.value(at: "777") == records.value(at: "777"))
        #expect(try plist.kind(ofObject: plist.topObjectIndex) == .array)
        #expect(try plist.elements(ofArray: plist.topObjectIndex)?.count == 20_000)
        let answered = source.bytesGiven - opened
        #expect(answered <= 16 * 4096 + 40_000, "\(answered) bytes read for four answers")
        #expect(source.bytesGiven < source.count / 2, "\(source.bytesGiven) of \(source.count) bytes read")
        #expect(try plist.topValue() == records)
        #expect(source.bytesGiven == source.count, "a full read reads each byte once")
    }

    /// Thirty thousand objects at one offset, an array of 30,000 references to them
    /// all: reading its tree piece by piece visits each object once but would scan its
    /// references each time, 900 million reads, had the walk no budget. It refuses the
    /// file as the document in memory does, and as fast.
    @Test func manyObjectsAtOneOffsetCostTheWalkNoMoreThanTheFile() throws {
        let count = 30_000
        var bytes = Array("bplist00".utf8) + [0xAF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
        for position in 0..<count { bytes += [UInt8(position >> 8), UInt8(position & 0xFF)] }
        let table = bytes.count
        bytes += [UInt8](repeating: 8, count: count)
        bytes += [0, 0, 0, 0, 0, 0, 1, 2]
        for field in [UInt64(count), 0, UInt64(table)] { bytes += withUnsafeBytes(of: field.bigEndian, Array.init) }
        let inMemory = #expect(throws: PropertyListError.self) { try BinaryPropertyList(bytes: bytes).topValue() }
        let start = ContinuousClock.now
        let paged = #expect(throws: PropertyListError.self) {
            try BinaryPropertyList(reading: CountingSource(bytes), limits: .default, pageSize: 1).topValue()
        }
        #expect(ContinuousClock.now - start < .seconds(2), "the walk took \(ContinuousClock.now - start)")
        #expect(paged?.code == inMemory?.code)
    }

    /// A source that fails is a typed error, at opening or at an answer, and an answer
    /// asked again after the source recovers is right.
    @Test func aFailingSourceIsReadFailed() throws {
        let bytes = try PropertyListWriter.binary.write(.array((0..<5_000).map { .string("item \($0)") }))
        let source = CountingSource(bytes)
        source.fails(true)
        let opening = #expect(throws: PropertyListError.self) { try BinaryPropertyList(reading: source) }
        #expect(opening?.code == .readFailed)
        source.fails(false)
        let plist = try BinaryPropertyList(reading: source)
        source.fails(true)
        let answering = #expect(throws: PropertyListError.self) { try plist.value(at: "4000") }
        #expect(answering?.code == .readFailed)
        source.fails(false)
        #expect(try plist.value(at: "4000") == "item 4000")
    }

    /// A document read whole from a source reads the source once, all of it, and answers
    /// as one made from its bytes; a source that fails is `.readFailed` at opening.
    @Test func aDocumentReadWholeFromASourceAnswersAsItsBytes() throws {
        let bytes = try PropertyListWriter.binary.write(.array((0..<5_000).map { .string("item \($0)") }))
        let source = CountingSource(bytes)
        let whole = try BinaryPropertyList(readingAll: source)
        #expect(source.bytesGiven == bytes.count)
        #expect(try whole.topValue() == (try BinaryPropertyList(bytes: bytes).topValue()))
        #expect(source.bytesGiven == bytes.count, "answers read the source again")
        source.fails(true)
        let opening = #expect(throws: PropertyListError.self) { try BinaryPropertyList(readingAll: source) }
        #expect(opening?.code == .readFailed)
    }

    /// The lazy document and the full reader accept and refuse exactly the same files:
    /// every binary file of the corpus, the fuzzers' corpora when present, and
    /// deterministic mutations of the corpus files. Accepting means building the whole
    /// tree, here through the navigation calls alone. A document read piece by piece
    /// gives the same answers, and fails with the same codes, as one in memory.
    @Test(.requiresCorpus) func lazyAndFullReadersAcceptTheSameFiles() throws {
        let limits = PropertyListLimits(maxDepth: 128, maxObjectCount: 200_000, maxByteCount: .max)
        var inputs: [(String, [UInt8])] = try Self.binaryCorpusFiles().map { ($0, try Corpus.bytes($0)) }
        inputs += Self.fuzzCorpusFiles()
        var generator = SplitMix64(seed: 0x5EED)
        for (name, bytes) in inputs where bytes.count > 8 && bytes.count <= 64 << 10 {
            for mutation in 0..<20 {
                var mutated = bytes
                for _ in 0...(generator.next() % 4) {
                    mutated[8 + Int(generator.next() % UInt64(mutated.count - 8))] = UInt8(
                        truncatingIfNeeded: generator.next())
                }
                inputs.append(("\(name) mutation \(mutation)", mutated))
            }
        }
        var (accepted, refused) = (0, 0)
        for (name, bytes) in inputs {
            let full = Result { try PropertyListReader(limits: limits).read(bytes, as: .binary) }
            let lazy = Result { () throws -> PropertyListValue in
                let plist = try BinaryPropertyList(bytes: bytes, limits: limits)
                var walk = LazyWalk(plist, limits: limits)
                return try walk.value(ofObject: plist.topObjectIndex)
            }
            // A byte at a time, so that every byte an answer uses must have been read.
            let paged = Result { () throws -> PropertyListValue in
                let plist = try BinaryPropertyList(reading: CountingSource(bytes), limits: limits, pageSize: 1)
                var walk = LazyWalk(plist, limits: limits)
                return try walk.value(ofObject: plist.topObjectIndex)
            }
            let pagedWhole = Result { () throws -> PropertyListValue in
                try BinaryPropertyList(reading: CountingSource(bytes), limits: limits, pageSize: 1).topValue()
            }
            #expect(Self.outcome(paged) == Self.outcome(lazy), "\(name): read piece by piece, it answers otherwise")
            #expect(
                Self.outcome(pagedWhole) == Self.outcome(full), "\(name): its whole tree read piece by piece differs")
            switch (full, lazy) {
            case (.success(let eager), .success(let walked)):
                #expect(eager == walked, "\(name): the two readers built different trees")
                accepted += 1
            case (.failure, .failure):
                refused += 1
            case (.success, .failure(let error)):
                Issue.record("\(name): only the lazy document refuses it: \(error)")
            case (.failure(let error), .success):
                Issue.record("\(name): only the full reader refuses it: \(error)")
            }
        }
        #expect(accepted > 100 && refused > 100, "accepted \(accepted), refused \(refused)")
    }

    /// A read's value, or the code of its error.
    static func outcome(_ result: Result<PropertyListValue, any Error>) -> Result<PropertyListValue, PropertyListError>
    {
        result.mapError { ($0 as? PropertyListError) ?? PropertyListError(.unknownFormat, "\($0)") }
            .flatMapError { .failure(PropertyListError($0.code, "")) }
    }

    static func binaryCorpusFiles() -> [String] {
        (Corpus.files(under: "plist") + Corpus.files(under: "archives")).filter { file in
            (try? Corpus.bytes(file).starts(with: "bplist".utf8)) == true
        }
    }

    /// What `scripts/fuzz.sh` left in the binary and lazy-document working corpora,
    /// when it has run here; a lazy-document input loses its key-path prefix.
    static func fuzzCorpusFiles() -> [(String, [UInt8])] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let folder = url.appendingPathComponent(".build-fuzz")
        var files: [(String, [UInt8])] = []
        for work in ["work-binary", "work-lazy"] {
            let directory = folder.appendingPathComponent(work)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
                guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
                else { continue }
                var bytes = [UInt8](data)
                if work == "work-lazy" {
                    guard let length = bytes.first.map(Int.init), bytes.count > length else { continue }
                    bytes.removeFirst(length + 1)
                }
                if bytes.starts(with: "bplist".utf8) { files.append(("\(work)/\(name)", bytes)) }
            }
        }
        return files
    }

    /// Key paths to every value of `tree`, breadth first, at most `limit` of them.
    static func keyPaths(in tree: PropertyListValue, limit: Int) -> [PropertyListKeyPath] {
        var paths: [PropertyListKeyPath] = []
        var queue: [([String], PropertyListValue)] = [([], tree)]
        while !queue.isEmpty, paths.count < limit {
            let (components, value) = queue.removeFirst()
            if !components.isEmpty { paths.append(PropertyListKeyPath(components: components)) }
            switch value {
            case .array(let elements):
                for (position, element) in elements.enumerated() {
                    queue.append((components + [String(position)], element))
                }
            case .dictionary(let dictionary):
                for (key, child) in dictionary where !key.isEmpty { queue.append((components + [key], child)) }
            default:
                break
            }
        }
        return paths
    }
}
