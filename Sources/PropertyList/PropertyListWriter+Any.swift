#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension PropertyListWriter {
    /// The bytes of a Foundation-style value — `[String]`, `[String: Any]`, nested arrays
    /// and dictionaries of strings, numbers, dates, data and booleans — in this
    /// writer's format, bridged as ``PropertyListValue/init(bridging:keyPath:)`` says.
    ///
    /// ```swift
    /// let data = try PropertyListWriter.xml.data(fromPropertyList: ["Manny", "Moe", "Jack"])
    /// ```
    /// Corresponds to `PropertyListSerialization.data(fromPropertyList:format:options:)`.
    /// - Throws: ``PropertyListError`` `.unsupportedValue` naming the key path of a value
    ///   that is not a property-list value, or what the format cannot hold.
    public func data(fromPropertyList propertyList: Any) throws(PropertyListError) -> Data {
        Data(try write(PropertyListValue(bridging: propertyList)))
    }
}

extension PropertyListReader {
    /// The Foundation-style value of a property list in any format, with the format it
    /// was in: `String`, `Int`, `Double`, `Bool`, `Date`, `Data`, `[Any]`,
    /// `[String: Any]` (see ``PropertyListValue/bridgedObject``).
    ///
    /// ```swift
    /// let (value, format) = try PropertyListReader().propertyList(from: data)
    /// let names = value as? [String]
    /// ```
    /// Corresponds to `PropertyListSerialization.propertyList(from:options:format:)`.
    /// - Throws: ``PropertyListError``.
    public func propertyList(from data: Data) throws(PropertyListError) -> (value: Any, format: PropertyListFormat) {
        let (value, format) = try readWithFormat([UInt8](data))
        return (value.bridgedObject, format)
    }
}
