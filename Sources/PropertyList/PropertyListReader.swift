#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Reads a property list in any format: binary, XML, OpenStep (`.strings` included)
/// or JSON, recognised from its first bytes.
///
/// Corresponds to `PropertyListSerialization.propertyList(from:options:format:)`.
///
/// ```swift
/// let reader = PropertyListReader()
/// let (value, format) = try reader.readWithFormat(bytes)
/// print(value["CFBundleName"]?.stringValue ?? "-", format)
/// ```
public struct PropertyListReader: Sendable {
    public var limits: PropertyListLimits

    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// - Throws: ``PropertyListError``; `.unknownFormat` when no format fits.
    public func read(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        try readWithFormat(bytes).value
    }

    /// - Throws: ``PropertyListError``.
    public func read(_ data: Data) throws(PropertyListError) -> PropertyListValue {
        try read([UInt8](data))
    }

    /// Reads the value and says which format it was in.
    /// - Throws: ``PropertyListError``.
    public func readWithFormat(_ bytes: [UInt8]) throws(PropertyListError) -> (
        value: PropertyListValue, format: PropertyListFormat
    ) {
        let (value, format, _) = try readWithWarnings(bytes)
        return (value, format)
    }

    /// ``readWithFormat(_:)``, with what the read let pass as Foundation does (see
    /// ``PropertyListWarning``), for a tool to report.
    /// - Throws: ``PropertyListError``.
    public func readWithWarnings(_ bytes: [UInt8]) throws(PropertyListError) -> (
        value: PropertyListValue, format: PropertyListFormat, warnings: [PropertyListWarning]
    ) {
        guard let format = PropertyListFormat.detect(bytes) else {
            throw PropertyListError(.unknownFormat, "empty input or no property-list format recognised", offset: 0)
        }
        guard format == .openStep else { return (try read(bytes, as: format), format, []) }
        let (value, warnings) = try bytes.withUnsafeBufferPointer { (buffer) throws(PropertyListError) in
            try OpenStepPropertyListReader.read(buffer, limits: limits)
        }
        return (value, format, warnings)
    }

    /// Reads bytes known to be in `format`.
    /// - Throws: ``PropertyListError``.
    public func read(_ bytes: [UInt8], as format: PropertyListFormat) throws(PropertyListError) -> PropertyListValue {
        switch format {
        case .binary:
            return try bytes.withUnsafeBufferPointer { (buffer) throws(PropertyListError) in
                try BinaryPropertyList.topValue(of: UnsafeRawBufferPointer(buffer), limits: limits)
            }
        case .xml:
            return try bytes.withUnsafeBufferPointer { (buffer) throws(PropertyListError) in
                try XMLPropertyListReader.read(buffer, limits: limits)
            }
        case .openStep:
            return try bytes.withUnsafeBufferPointer { (buffer) throws(PropertyListError) in
                try OpenStepPropertyListReader.read(buffer, limits: limits).value
            }
        case .json:
            return try bytes.withUnsafeBufferPointer { (buffer) throws(PropertyListError) in
                try JSONPropertyListReader.read(buffer, limits: limits)
            }
        }
    }
}
