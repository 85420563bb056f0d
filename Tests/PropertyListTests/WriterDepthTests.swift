import Foundation
import Testing

@testable import PropertyList

/// Every writer recurses once per level of nesting, so each must refuse a value nested
/// deeper than `maxDepth` with `.limitExceeded` instead of overflowing the stack, and
/// must still write, in a form the readers accept, a value exactly `maxDepth` deep.
struct WriterDepthTests {
    /// `leaf` inside `depth` one-element arrays.
    static func nestedArrays(_ depth: Int, leaf: PropertyListValue = "leaf") -> PropertyListValue {
        var value = leaf
        for _ in 0..<depth { value = [value] }
        return value
    }

    /// `leaf` inside `depth` containers alternating a dictionary (key `k`) and an array.
    static func nestedMixed(_ depth: Int, leaf: PropertyListValue = "leaf") -> PropertyListValue {
        var value = leaf
        for level in 0..<depth { value = level.isMultiple(of: 2) ? [value] : ["k": value] }
        return value
    }

    static let maxDepth = PropertyListLimits.default.maxDepth

    static func expectTooDeep(
        _ write: () throws -> [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: PropertyListError.self, sourceLocation: sourceLocation) { try write() }
        #expect(error?.code == .limitExceeded, sourceLocation: sourceLocation)
    }

    @Test(arguments: PropertyListFormat.allCases, [maxDepth + 1, 300, 10_000])
    func aValueNestedTooDeeplyIsRefused(format: PropertyListFormat, depth: Int) {
        let value = Self.nestedArrays(depth)
        let error = #expect(throws: PropertyListError.self) { try PropertyListWriter(format: format).write(value) }
        #expect(error?.code == .limitExceeded)
        // The key path names the first container past the limit.
        #expect(error?.keyPath == String(repeating: "[0]", count: Self.maxDepth))
    }

    @Test(arguments: PropertyListFormat.allCases)
    func theKeyPathNamesKeysAndIndexes(format: PropertyListFormat) {
        let limits = PropertyListLimits(maxDepth: 4)
        let error = #expect(throws: PropertyListError.self) {
            try PropertyListWriter(format: format, limits: limits).write(Self.nestedMixed(5))
        }
        #expect(error?.code == .limitExceeded)
        // Outermost first: array, dictionary, array, dictionary, then the refused array.
        #expect(error?.keyPath == "[0].k[0].k")
    }

    @Test(arguments: PropertyListFormat.allCases)
    func exactlyMaxDepthLevelsWriteAndReadBack(format: PropertyListFormat) throws {
        for value in [Self.nestedArrays(Self.maxDepth), Self.nestedMixed(Self.maxDepth)] {
            let bytes = try PropertyListWriter(format: format).write(value)
            #expect(try PropertyListReader().read(bytes, as: format) == value)
        }
    }

    @Test(arguments: PropertyListFormat.allCases)
    func aLowerLimitIsHonoured(format: PropertyListFormat) throws {
        let writer = PropertyListWriter(format: format, limits: PropertyListLimits(maxDepth: 3))
        #expect(
            try PropertyListReader().read(try writer.write(Self.nestedArrays(3)), as: format) == Self.nestedArrays(3))
        Self.expectTooDeep { try writer.write(Self.nestedArrays(4)) }
        // A scalar root is no container at all, so even a limit of 0 writes it.
        let flat = PropertyListWriter(format: format, limits: PropertyListLimits(maxDepth: 0))
        #expect(try PropertyListReader().read(try flat.write("leaf"), as: format) == "leaf")
        Self.expectTooDeep { try flat.write([]) }
    }

    /// The readers count an empty container as a level, so the writers do too: what
    /// is written always reads back with the same limits.
    @Test(arguments: PropertyListFormat.allCases)
    func anEmptyContainerPastTheLimitCounts(format: PropertyListFormat) {
        for leaf: PropertyListValue in [[], [:]] {
            Self.expectTooDeep {
                try PropertyListWriter(format: format).write(Self.nestedArrays(Self.maxDepth, leaf: leaf))
            }
        }
    }

    /// XML and JSON spell a UID as a `{CF$UID}` dictionary, which reads back as one more
    /// level; binary stores it as a scalar.
    @Test func aUIDCountsAsALevelWhereItIsWrittenAsADictionary() throws {
        let uid = PropertyListValue.uid(PropertyListUID(7))
        let json = PropertyListWriter(format: .json, jsonOptions: JSONWritingOptions(uid: .dictionary))
        for writer in [PropertyListWriter.xml, json] {
            let inside = try writer.write(Self.nestedArrays(Self.maxDepth - 1, leaf: uid))
            #expect((try? PropertyListReader().read(inside)) != nil, "\(writer.format) output does not read back")
            Self.expectTooDeep { try writer.write(Self.nestedArrays(Self.maxDepth, leaf: uid)) }
        }
        let binary = try PropertyListWriter.binary.write(Self.nestedArrays(Self.maxDepth, leaf: uid))
        #expect(try PropertyListReader().read(binary) == Self.nestedArrays(Self.maxDepth, leaf: uid))
    }

    @Test func theDescriptionStopsAtTheDefaultDepth() {
        let text = Self.nestedArrays(10_000).description
        #expect(text.contains("…"))
        #expect(!text.contains("leaf"))
        let shallow = Self.nestedArrays(Self.maxDepth).description
        #expect(shallow.contains("\"leaf\""))
        #expect(!shallow.contains("…"))
    }
}
