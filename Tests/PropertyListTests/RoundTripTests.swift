import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// Every valid corpus file, whatever its format, read → written in each format → read
/// again gives an equal value.
struct RoundTripTests {
    static let validFiles =
        Corpus.files(under: "plist/valid") + Corpus.files(under: "archives/apple")
        + Corpus.files(under: "archives/other")

    @Test(.requiresCorpus) func corpusIsPresent() {
        #expect(Self.validFiles.count > 150)
    }

    @Test(arguments: validFiles)
    func throughBinary(_ path: String) throws {
        let original = try PropertyListReader().read(try Corpus.bytes(path))
        let back = try PropertyListReader().read(try PropertyListWriter.binary.write(original), as: .binary)
        #expect(back == original, "\(path) changed through binary")
    }

    /// XML dates carry whole seconds (Apple's readers reject a fraction), so the
    /// original is compared with its dates rounded down the same way.
    @Test(arguments: validFiles)
    func throughXML(_ path: String) throws {
        let original = try PropertyListReader().read(try Corpus.bytes(path))
        let back = try PropertyListReader().read(try PropertyListWriter.xml.write(original), as: .xml)
        #expect(back == Self.wholeSeconds(original), "\(path) changed through XML")
    }

    static func wholeSeconds(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .date(let date):
            return .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down)))
        case .array(let elements):
            return .array(elements.map(wholeSeconds))
        case .dictionary(let dictionary):
            return .dictionary(PropertyListDictionary(dictionary.map { ($0.key, wholeSeconds($0.value)) }))
        default:
            return value
        }
    }
}
