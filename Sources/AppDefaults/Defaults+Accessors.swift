public import Foundation
import Locking
import PropertyList

extension Defaults {
    // MARK: Reading, as UserDefaults does

    /// The value through the search list, as `String`, `Int`, `Double`, `Bool`, `Date`,
    /// `Data`, `[Any]` or `[String: Any]`. Corresponds to `object(forKey:)`.
    public func object(forKey key: String) -> Any? {
        self[key].map(\.bridgedObject)
    }

    /// A string; numbers are turned into their text, as Apple's accessor does.
    /// Corresponds to `string(forKey:)`.
    public func string(forKey key: String) -> String? {
        self[key].flatMap(Coercion.string)
    }

    /// An integer; reals are truncated, booleans are 0 or 1, strings are read as
    /// `NSString.integerValue` reads them ("42" and "42abc" are 42); 0 when absent.
    /// Corresponds to `integer(forKey:)`.
    public func integer(forKey key: String) -> Int {
        self[key].flatMap(Coercion.integer) ?? 0
    }

    /// A real; integers and booleans convert, strings are read as
    /// `NSString.doubleValue` reads them; 0 when absent. Corresponds to `double(forKey:)`.
    public func double(forKey key: String) -> Double {
        self[key].flatMap(Coercion.double) ?? 0
    }

    /// ``double(forKey:)`` narrowed to `Float`. Corresponds to `float(forKey:)`.
    public func float(forKey key: String) -> Float {
        Float(double(forKey: key))
    }

    /// A boolean; numbers are true when not zero, strings as `NSString.boolValue`
    /// reads them ("YES", "true", "1" are true; "NO", "0", "" are false); false when
    /// absent. Corresponds to `bool(forKey:)`.
    public func bool(forKey key: String) -> Bool {
        self[key].flatMap(Coercion.bool) ?? false
    }

    /// An array, or nil when the value is not one. Corresponds to `array(forKey:)`.
    public func array(forKey key: String) -> [Any]? {
        guard case .array(let array)? = self[key] else { return nil }
        return array.map(\.bridgedObject)
    }

    /// An array of strings (numbers turned into their text), or nil when the value is
    /// not an array or holds something else. Corresponds to `stringArray(forKey:)`.
    public func stringArray(forKey key: String) -> [String]? {
        guard case .array(let array)? = self[key] else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(array.count)
        for element in array {
            guard let string = Coercion.string(element) else { return nil }
            strings.append(string)
        }
        return strings
    }

    /// A dictionary, or nil when the value is not one. Corresponds to `dictionary(forKey:)`.
    public func dictionary(forKey key: String) -> [String: Any]? {
        guard case .dictionary(let dictionary)? = self[key] else { return nil }
        return dictionary.bridgedObject
    }

    /// Data, or nil when the value is not data. Corresponds to `data(forKey:)`.
    public func data(forKey key: String) -> Data? {
        self[key]?.dataValue
    }

    /// A URL stored with `set(_:forKey:)`, or read from a string: a path
    /// (`/…` or `~/…`) becomes a file URL. Corresponds to `url(forKey:)`.
    public func url(forKey key: String) -> URL? {
        guard case .string(let string)? = self[key] else { return nil }
        if string.hasPrefix("/") { return URL(fileURLWithPath: string) }
        if string.hasPrefix("~") { return URL(fileURLWithPath: NSString(string: string).expandingTildeInPath) }
        return URL(string: string)
    }

    // MARK: Writing

    /// Stores any property-list value: `String`, integers, `Double`, `Float`, `Bool`,
    /// `Date`, `Data`, `PropertyListValue` and arrays and string-keyed dictionaries of
    /// them, or a `URL` (as ``set(_:forKey:)-(URL,_)`` stores it); nil removes the key.
    /// Corresponds to `set(_:forKey:)`, which raises an exception where this throws (a
    /// URL inside an array or dictionary included, as on Apple's platforms).
    /// - Throws: ``DefaultsError`` `.notPropertyList` with the path of the offending
    ///   value (`key.items[2]`); nothing is stored then.
    public func set(_ value: Any?, forKey key: String) throws(DefaultsError) {
        switch value {
        case nil:
            removeObject(forKey: key)
        case let url as URL:
            set(url, forKey: key)
        case let value?:
            store(try DefaultsBridging.value(from: value, keyPath: key), forKey: key)
        }
    }

    /// Corresponds to `set(_:forKey:)` with a `String`.
    public func set(_ value: String, forKey key: String) {
        store(.string(value), forKey: key)
    }

    /// Corresponds to `set(_:forKey:)` with an `Int`.
    public func set(_ value: Int, forKey key: String) {
        store(.integer(Int64(value)), forKey: key)
    }

    /// Corresponds to `set(_:forKey:)` with a `Double`.
    public func set(_ value: Double, forKey key: String) {
        store(.real(value), forKey: key)
    }

    /// Corresponds to `set(_:forKey:)` with a `Float`.
    public func set(_ value: Float, forKey key: String) {
        store(.float(value), forKey: key)
    }

    /// Corresponds to `set(_:forKey:)` with a `Bool`.
    public func set(_ value: Bool, forKey key: String) {
        store(.bool(value), forKey: key)
    }

    /// Corresponds to `set(_:forKey:)` with `Data`.
    public func set(_ value: Data, forKey key: String) {
        store(.data(value), forKey: key)
    }

    /// Corresponds to `set(_:forKey:)` with a `Date`.
    public func set(_ value: Date, forKey key: String) {
        store(.date(value), forKey: key)
    }

    /// Stores a URL as text: a file URL as its path, others as their absolute string.
    /// Corresponds to `set(_:forKey:)` with a `URL`.
    public func set(_ url: URL, forKey key: String) {
        store(.string(DefaultsBridging.storedString(for: url)), forKey: key)
    }

    /// Removes `key` from the primary domain; a registered value shows again.
    /// Corresponds to `removeObject(forKey:)`.
    public func removeObject(forKey key: String) {
        store(nil, forKey: key)
    }

    // MARK: Codable

    /// Stores an `Encodable` value as a property-list tree (the shape Foundation's
    /// `PropertyListEncoder` gives it), readable in the file and by ``decodable(_:forKey:)``.
    /// - Throws: ``DefaultsError`` `.encodingFailed` with the value's error underneath.
    public func set<Value: Encodable>(encodable value: Value, forKey key: String) throws(DefaultsError) {
        store(try Self.encode(value, key: key), forKey: key)
    }

    /// A value stored with ``set(encodable:forKey:)``; nil when the key is absent.
    /// - Throws: ``DefaultsError`` `.decodingFailed` when the stored value does not
    ///   decode as `type`.
    public func decodable<Value: Decodable>(_ type: Value.Type, forKey key: String) throws(DefaultsError) -> Value? {
        guard let value = self[key] else { return nil }
        return try Self.decode(type, from: value, key: key)
    }

    static func encode<Value: Encodable>(_ value: Value, key: String) throws(DefaultsError) -> PropertyListValue {
        do {
            return try PropertyListTreeEncoder.encode(value)
        } catch {
            throw DefaultsError(
                .encodingFailed, "cannot encode \(Value.self)", keyPath: key, underlyingError: error)
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from value: PropertyListValue, key: String)
        throws(DefaultsError) -> Value
    {
        do {
            return try PropertyListTreeDecoder.decode(type, from: value, limits: .default)
        } catch {
            throw DefaultsError(
                .decodingFailed, "cannot decode \(Value.self)", keyPath: key, underlyingError: error)
        }
    }

    // MARK: The one place values change

    /// Sets (or removes, for nil) `key` in the primary domain (first in the search
    /// list, always loaded), schedules the save and notifies observers.
    func store(_ value: PropertyListValue?, forKey key: String) {
        let (old, new) = state.withLock { state in
            let old = state.lookup(key)
            // Through the index, the domain is changed in place, not moved out and back.
            if let index = state.domains.index(forKey: domainName) {
                state.domains.values[index].change(key, to: value)
            }
            let new = state.argumentValues[key] ?? value ?? state.lookup(key)
            scheduleSave(in: &state)
            return (old, new)
        }
        deliver(
            old == new ? [] : [DefaultsChange(key: key, oldValue: old, newValue: new, isExternal: false)],
            alwaysPost: true)
    }
}
