import Foundation
import PropertyList

/// What defaults add to the property-list layer's one `Any` bridge: its failure as a
/// ``DefaultsError``, and how a URL is stored.
enum DefaultsBridging {
    /// The property-list form of `value` (see ``PropertyListValue/init(bridging:keyPath:)``).
    /// - Throws: ``DefaultsError`` `.notPropertyList` naming the path of the first value
    ///   that is not one.
    static func value(from value: Any, keyPath: String) throws(DefaultsError) -> PropertyListValue {
        do {
            return try PropertyListValue(bridging: value, keyPath: keyPath)
        } catch {
            throw DefaultsError(.notPropertyList, error.message, keyPath: error.keyPath ?? keyPath)
        }
    }

    /// A string-keyed dictionary's property-list form, each key's path under `keyPath`.
    /// - Throws: ``DefaultsError`` `.notPropertyList`.
    static func dictionary(from values: [String: Any], keyPath: String = "") throws(DefaultsError)
        -> PropertyListDictionary
    {
        guard case .dictionary(let dictionary) = try value(from: values, keyPath: keyPath) else {
            preconditionFailure("a [String: Any] bridges to a dictionary")
        }
        return dictionary
    }

    /// URLs are stored as strings: file URLs as their path (what `url(forKey:)` turns
    /// back into a file URL, as Apple's does for paths), others as absolute strings.
    static func storedString(for url: URL) -> String {
        url.isFileURL ? url.path : url.absoluteString
    }
}
