/// Writes a property list in one format.
///
/// Corresponds to `PropertyListSerialization.data(fromPropertyList:format:options:)`.
/// Binary output deduplicates equal strings and scalars and picks minimal widths; XML
/// output follows Apple's layout (standard header, tab indentation, dates in `Z` form).
///
/// Writing recurses once per level of nesting, so ``limits``' `maxDepth` bounds it: a
/// value whose containers nest deeper is refused with `.limitExceeded` rather than
/// exhausting the stack. Every container counts as a level, empty ones and (in XML and
/// JSON, which spell it as a dictionary) a UID included, as the readers count them, so
/// whatever a writer writes reads back with the same limits.
///
/// ```swift
/// let bytes = try PropertyListWriter(format: .xml).write(["name": "Spork"])
/// ```
public struct PropertyListWriter: Sendable {
    public var format: PropertyListFormat
    /// How JSON output renders the types JSON lacks; ignored by the other formats.
    public var jsonOptions: JSONWritingOptions
    /// How deeply the value's containers may nest (`maxDepth`); the other bounds are for
    /// reading and are ignored here. Raising `maxDepth` far above the default lets the
    /// writer recurse that deep.
    public var limits: PropertyListLimits

    public init(
        format: PropertyListFormat, jsonOptions: JSONWritingOptions = .init(), limits: PropertyListLimits = .default
    ) {
        self.format = format
        self.jsonOptions = jsonOptions
        self.limits = limits
    }

    public static let binary = PropertyListWriter(format: .binary)
    public static let xml = PropertyListWriter(format: .xml)

    /// - Throws: ``PropertyListError`` with `.unsupportedValue` when the format cannot
    ///   represent a value (a UID in XML is fine, a date in JSON is not by default), or
    ///   `.limitExceeded` for a container nested deeper than `limits.maxDepth`; either
    ///   names the value's key path.
    public func write(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        let maxDepth = limits.maxDepth
        return switch format {
        case .binary: try BinaryPropertyListWriter.write(value, maxDepth: maxDepth)
        case .xml: try XMLPropertyListWriter.write(value, maxDepth: maxDepth)
        case .openStep: try OpenStepPropertyListWriter.write(value, maxDepth: maxDepth)
        case .json: try JSONPropertyListWriter(options: jsonOptions, maxDepth: maxDepth).write(value)
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
