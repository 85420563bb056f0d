import PropertyList
import Testing

/// A suite about one text format: `read` parses a text, or its bytes, as that format
/// and nothing else, through the public reader.
protocol ReadsOneTextFormat {
    static var format: PropertyListFormat { get }
}

extension ReadsOneTextFormat {
    func read(_ bytes: [UInt8], limits: PropertyListLimits = .default) throws(PropertyListError) -> PropertyListValue {
        try PropertyListReader(limits: limits).read(bytes, as: Self.format)
    }

    func read(_ text: String, limits: PropertyListLimits = .default) throws(PropertyListError) -> PropertyListValue {
        try read(Array(text.utf8), limits: limits)
    }
}

/// One kind of malformed input to a text format, and where the reader must say it is.
struct Malformed: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let code: PropertyListError.Code
    /// 0 when the error has no position (the input's encoding is broken).
    let line: Int
    let column: Int
    /// CoreFoundation is more lenient than we are on this input.
    let foundationAccepts: Bool
    var testDescription: String { name }

    init(
        _ name: String, _ bytes: [UInt8], _ code: PropertyListError.Code, line: Int = 1, column: Int,
        foundationAccepts: Bool = false
    ) {
        (self.name, self.bytes, self.code) = (name, bytes, code)
        (self.line, self.column, self.foundationAccepts) = (line, column, foundationAccepts)
    }

    init(
        _ name: String, _ text: String, _ code: PropertyListError.Code, line: Int = 1, column: Int,
        foundationAccepts: Bool = false
    ) {
        self.init(name, Array(text.utf8), code, line: line, column: column, foundationAccepts: foundationAccepts)
    }
}
