import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// One test per kind of corruption, each on bytes written out here.
struct BinaryCorruptionTests {
    func code(of bytes: [UInt8], limits: PropertyListLimits = .default) -> PropertyListError.Code? {
        do {
            _ = try PropertyListReader(limits: limits).read(bytes)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func wellFormedBuilderOutputReads() throws {
        // ["a"]: array with one reference to object 1, an ASCII string of length 1.
        let bytes = BinaryPlistBytes.build(objects: [[0xA1, 0x01], [0x51, 0x61]])
        #expect(try PropertyListReader().read(bytes) == ["a"])
    }

    @Test func truncationAtEveryLengthIsRejected() throws {
        let bytes = try PropertyListWriter.binary.write(["key": "value", "list": [1, 2.5, true]])
        for length in 0..<bytes.count {
            // Read as binary: a prefix like "bpl" alone is a valid OpenStep string.
            #expect(throws: PropertyListError.self, "prefix of \(length) bytes") {
                try PropertyListReader().read(Array(bytes[..<length]), as: .binary)
            }
        }
    }

    @Test func badMagicAndVersion() {
        var bytes = BinaryPlistBytes.build(objects: [[0x09]])
        bytes[6] = UInt8(ascii: "1")  // bplist10
        #expect(code(of: bytes) == .invalidHeader)
    }

    @Test func trailerWithZeroOffsetSize() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x09]], offsetSize: 0)) == .invalidTrailer)
    }

    @Test func trailerWithNineByteReferences() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x09]], referenceSize: 9)) == .invalidTrailer)
    }

    @Test func trailerTopObjectBeyondCount() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x09]], top: 1)) == .invalidTrailer)
    }

    @Test func trailerWithHugeObjectCount() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x09]], objectCount: UInt64.max)) == .invalidTrailer)
    }

    @Test func offsetTableOverlappingTrailer() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x09]], tableOffset: 1_000)) == .invalidTrailer)
    }

    @Test func offsetPointingIntoHeader() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x09]], offsets: [3])) == .offsetOutOfRange)
    }

    @Test func offsetPointingIntoOffsetTable() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x09]], offsets: [9])) == .offsetOutOfRange)
    }

    @Test func referenceOutOfRange() {
        // Array whose one reference names object 5 of 2.
        #expect(code(of: BinaryPlistBytes.build(objects: [[0xA1, 0x05], [0x09]])) == .referenceOutOfRange)
    }

    @Test func arrayContainingItself() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0xA1, 0x00]])) == .cyclicReference)
    }

    @Test func cycleThroughTwoDictionaries() {
        // {k: {k: <object 0>}}
        let bytes = BinaryPlistBytes.build(objects: [[0xD1, 0x02, 0x01], [0xD1, 0x02, 0x00], [0x51, 0x6B]])
        #expect(code(of: bytes) == .cyclicReference)
    }

    @Test func hugeCountInMarker() {
        // Array claiming 2^62 elements through an 8-byte extended count.
        let bytes = BinaryPlistBytes.build(objects: [[0xAF, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x01], [0x09]])
        #expect(code(of: bytes) == .truncated)
    }

    @Test func countLargerThanFile() {
        // Data of 200 bytes in a file of a few dozen.
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x4F, 0x10, 200, 1, 2, 3]])) == .truncated)
    }

    @Test func extendedCountThatIsNotAnInteger() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x5F, 0x51, 0x61]])) == .invalidObject)
    }

    @Test func utf16LengthRunningPastTheData() {
        // Claims 4 UTF-16 units (8 bytes), holds 3 bytes.
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x64, 0x00, 0x61, 0x00]])) == .truncated)
    }

    @Test func utf16LoneSurrogate() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x61, 0xD8, 0x00]])) == .invalidString)
    }

    @Test func nonASCIIByteInASCIIString() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x51, 0xE9]])) == .invalidString)
    }

    @Test func nonASCIIByteAnywhereInAnASCIIStringInsideAnArray() {
        // Strings inside containers take the reader's short path; every length and position
        // of the bad byte must still be caught, including the tails of 8-byte checks.
        for length in 1...40 {
            for position in 0..<length {
                var text = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                text[position] = 0x80
                let marker: [UInt8] = length < 15 ? [0x50 | UInt8(length)] : [0x5F, 0x10, UInt8(length)]
                let bytes = BinaryPlistBytes.build(objects: [[0xA1, 0x01], marker + text])
                #expect(code(of: bytes) == .invalidString, "byte \(position) of \(length)")
            }
            let clean = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            let marker: [UInt8] = length < 15 ? [0x50 | UInt8(length)] : [0x5F, 0x10, UInt8(length)]
            #expect(
                code(of: BinaryPlistBytes.build(objects: [[0xA1, 0x01], marker + clean])) == nil,
                "clean string of \(length)")
        }
    }

    @Test func scalarsInsideAnArrayRunningPastTheObjectArea() {
        // [x] where x claims more payload than lies before the offset table.
        let truncated: [[UInt8]] = [
            [0x13, 0x00, 0x01],  // 8-byte integer, 2 bytes present
            [0x12, 0x00],  // 4-byte integer
            [0x23, 0x40, 0x09],  // 8-byte real
            [0x33, 0x41],  // date
            [0x55, 0x61, 0x62],  // ASCII string of 5, 2 present
            [0x5F, 0x10, 0x30, 0x61],  // ASCII string of 48 through an extended count
            [0x5F, 0x13, 0x7F],  // extended count whose own 8 bytes are missing
        ]
        // The same kinds one byte short, where an off-by-one bound would read into the table.
        let oneByteShort: [[UInt8]] = [
            [0x10],  // 1-byte integer
            [0x11, 0x00],  // 2-byte integer
            [0x12, 0x00, 0x00, 0x00],  // 4-byte integer
            [0x13, 0, 0, 0, 0, 0, 0, 0],  // 8-byte integer
            [0x22, 0x40, 0x49, 0x0F],  // 4-byte real
            [0x23, 0x40, 0x09, 0x21, 0xFB, 0x54, 0x44, 0x2D],  // 8-byte real
            [0x33, 0x41, 0xC2, 0x00, 0x00, 0x00, 0x00, 0x00],  // date
            [0x53, 0x61, 0x62],  // ASCII string of 3
            [0x5F, 0x10, 0x10] + [UInt8](repeating: 0x61, count: 15),  // ASCII string of 16
            [0x5F, 0x11, 0x00],  // extended count whose second byte is missing
        ]
        for object in truncated + oneByteShort {
            #expect(code(of: BinaryPlistBytes.build(objects: [[0xA1, 0x01], object])) == .truncated, "\(object)")
        }
        // An extended count must be an integer object.
        #expect(code(of: BinaryPlistBytes.build(objects: [[0xA1, 0x01], [0x5F, 0x51, 0x61]])) == .invalidObject)
    }

    @Test func onlyContainersCountTowardsTheDepthLimit() {
        let limits = PropertyListLimits(maxDepth: 3)
        // Arrays at depths 0, 1 and 2 hold a string at depth 3: allowed.
        let deepString = BinaryPlistBytes.build(objects: [[0xA1, 0x01], [0xA1, 0x02], [0xA1, 0x03], [0x51, 0x61]])
        #expect(code(of: deepString, limits: limits) == nil)
        // A fourth array, at depth 3, is one level too deep.
        let deepArray = BinaryPlistBytes.build(objects: [[0xA1, 0x01], [0xA1, 0x02], [0xA1, 0x03], [0xA0]])
        #expect(code(of: deepArray, limits: limits) == .limitExceeded)
    }

    @Test func nonStringDictionaryKey() {
        // {1: true}
        #expect(
            code(of: BinaryPlistBytes.build(objects: [[0xD1, 0x01, 0x02], [0x10, 0x01], [0x09]])) == .invalidObject)
    }

    @Test func unknownAndUnsupportedMarkers() {
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x00]])) == .invalidObject, "null")
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x70]])) == .invalidObject, "unused marker 7")
        #expect(code(of: BinaryPlistBytes.build(objects: [[0xC0]])) == .invalidObject, "set")
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x15, 0, 0]])) == .invalidObject, "32-byte integer")
        #expect(code(of: BinaryPlistBytes.build(objects: [[0x21, 0, 0]])) == .invalidObject, "2-byte real")
    }

    @Test func integerAbove128BitRange() {
        var object: [UInt8] = [0x14]
        object += [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)
        #expect(code(of: BinaryPlistBytes.build(objects: [object])) == .invalidObject)
    }

    @Test func deepNestingStopsAtTheLimit() {
        // 100,000 arrays each holding the next: 3-byte references, no cycle.
        let depth = 100_000
        var objects: [[UInt8]] = []
        for index in 0..<depth - 1 {
            let next = index + 1
            objects.append([0xA1, UInt8(next >> 16), UInt8(next >> 8 & 0xFF), UInt8(next & 0xFF)])
        }
        objects.append([0xA0])
        let bytes = BinaryPlistBytes.build(objects: objects, offsetSize: 4, referenceSize: 3)
        #expect(code(of: bytes) == .limitExceeded)
    }

    @Test func exponentialFanOutIsRefusedByTheObjectLimit() {
        // Object i is an array holding object i+1 twice: 2^40 values from 41 objects.
        var objects: [[UInt8]] = (0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x09])
        #expect(code(of: BinaryPlistBytes.build(objects: objects)) == .limitExceeded)
    }

    @Test func sharedStringCountsTowardsTheByteLimit() {
        // 300 references to one 14-byte string: 4,200 bytes reached.
        let references = [UInt8](repeating: 1, count: 300)
        let bytes = BinaryPlistBytes.build(
            objects: [[0xAF, 0x11, 0x01, 0x2C] + references, [0x5E] + Array("fourteen bytes".utf8)], offsetSize: 2)
        #expect(code(of: bytes, limits: PropertyListLimits(maxByteCount: 4_000)) == .limitExceeded)
        #expect(code(of: bytes, limits: PropertyListLimits(maxByteCount: 5_000)) == nil)
    }
}
