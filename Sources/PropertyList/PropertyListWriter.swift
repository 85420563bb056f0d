/// Writes a property list in one format.
///
/// Corresponds to `PropertyListSerialization.data(fromPropertyList:format:options:)`.
/// Binary output deduplicates equal strings and scalars and picks minimal widths; XML
/// output follows Apple's layout (standard header, tab indentation, dates in `Z` form).
///
/// ```swift
/// let bytes = try PropertyListWriter(format: .xml).write(["name": "Spork"])
/// ```
public struct PropertyListWriter: Sendable {
    public var format: PropertyListFormat
    /// How JSON output renders the types JSON lacks; ignored by the other formats.
    public var jsonOptions: JSONWritingOptions

    public init(format: PropertyListFormat, jsonOptions: JSONWritingOptions = .init()) {
        self.format = format
        self.jsonOptions = jsonOptions
    }

    public static let binary = PropertyListWriter(format: .binary)
    public static let xml = PropertyListWriter(format: .xml)

    /// - Throws: ``PropertyListError`` with `.unsupportedValue` when the format cannot
    ///   represent a value (a UID in XML is fine, a date in JSON is not by default),
    ///   naming its key path.
    public func write(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        switch format {
        case .binary: try BinaryPropertyListWriter.write(value)
        case .xml: try XMLPropertyListWriter.write(value)
        case .openStep: try OpenStepPropertyListWriter.write(value)
        case .json: try JSONPropertyListWriter(options: jsonOptions).write(value)
        }
    }
}

/// How JSON output renders values JSON has no type for.
public struct JSONWritingOptions: Sendable, Hashable {
    public enum DataRendering: Sendable, Hashable {
        /// Refuse with `.unsupportedValue` (what `plutil -convert json` does).
        case reject
        /// A base64 string.
        case base64
    }

    public enum DateRendering: Sendable, Hashable {
        case reject
        /// An ISO 8601 string in `Z` form, as XML plists write dates.
        case iso8601
        /// Seconds since 1970 as a number.
        case secondsSince1970
    }

    public enum UIDRendering: Sendable, Hashable {
        case reject
        /// `{"CF$UID": N}`, the form XML plists use.
        case dictionary
    }

    public var data: DataRendering
    public var date: DateRendering
    public var uid: UIDRendering
    /// Indent nested values and put one entry per line.
    public var prettyPrinted: Bool
    /// Sort dictionary keys instead of keeping their order.
    public var sortedKeys: Bool

    public init(
        data: DataRendering = .reject, date: DateRendering = .reject, uid: UIDRendering = .reject,
        prettyPrinted: Bool = false, sortedKeys: Bool = false
    ) {
        self.data = data
        self.date = date
        self.uid = uid
        self.prettyPrinted = prettyPrinted
        self.sortedKeys = sortedKeys
    }
}
