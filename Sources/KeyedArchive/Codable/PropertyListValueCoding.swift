/// The plist layer's `Codable` bridge with its failures mapped to ``KeyedArchiveError``.
enum PropertyListValueEncoder {
    /// - Throws: ``KeyedArchiveError`` with `.unsupportedValue`, the value's own error underneath.
    static func encode<Value: Encodable>(_ value: Value) throws(KeyedArchiveError) -> PropertyListValue {
        do {
            return try PropertyListTreeEncoder.encode(value)
        } catch {
            throw KeyedArchiveError(.unsupportedValue, "cannot encode \(Value.self)", underlyingError: error)
        }
    }
}

enum PropertyListValueDecoder {
    /// - Throws: ``KeyedArchiveError``: `.typeMismatch` wrapping the `DecodingError`,
    ///   or `.limitExceeded`.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from tree: PropertyListValue, limits: PropertyListLimits
    ) throws(KeyedArchiveError) -> Value {
        do {
            return try PropertyListTreeDecoder.decode(type, from: tree, limits: limits)
        } catch let error as KeyedArchiveError {
            throw error
        } catch let error as PropertyListError where error.code == .limitExceeded {
            throw KeyedArchiveError(.limitExceeded, error.message)
        } catch {
            throw KeyedArchiveError(.typeMismatch, "cannot decode \(Value.self)", underlyingError: error)
        }
    }
}
