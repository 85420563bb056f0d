public import Foundation
public import PropertyList

/// A type a ``Defaults/Key`` can hold: how it is stored as a property-list value and
/// read back.
///
/// Strings, integers, reals, `Bool`, `Date`, `Data`, `URL`, `PropertyListValue`,
/// arrays and string-keyed dictionaries of them, and optionals of any of these (nil is
/// an absent key) conform. A `Codable` type conforms by
/// declaring it, and is stored as the tree `PropertyListEncoder` would make:
///
/// ```swift
/// struct Layout: Codable, Sendable, DefaultsStorable { var rows = 4, columns = 3 }
/// let layout = Defaults.Key("layout", default: Layout())
/// try defaults.set(Layout(rows: 5, columns: 3), for: layout)
/// ```
public protocol DefaultsStorable: Sendable {
    /// The value stored as `value`, with Apple's coercions for scalars; nil when it
    /// does not convert (the key's default is used then).
    init?(defaultsValue value: PropertyListValue)
    /// The value to store.
    /// - Throws: ``DefaultsError`` `.encodingFailed` when it cannot be represented.
    func defaultsValue() throws(DefaultsError) -> PropertyListValue
}

extension DefaultsStorable where Self: Codable {
    public init?(defaultsValue value: PropertyListValue) {
        guard let decoded = try? Defaults.decode(Self.self, from: value, key: "") else { return nil }
        self = decoded
    }

    public func defaultsValue() throws(DefaultsError) -> PropertyListValue {
        try Defaults.encode(self, key: "")
    }
}

extension String: DefaultsStorable {
    public init?(defaultsValue value: PropertyListValue) {
        guard let string = Coercion.string(value) else { return nil }
        self = string
    }
    public func defaultsValue() -> PropertyListValue { .string(self) }
}

extension Int: DefaultsStorable {
    public init?(defaultsValue value: PropertyListValue) {
        guard let integer = Coercion.integer(value) else { return nil }
        self = integer
    }
    public func defaultsValue() -> PropertyListValue { .integer(Int64(self)) }
}

extension Double: DefaultsStorable {
    public init?(defaultsValue value: PropertyListValue) {
        guard let real = Coercion.double(value) else { return nil }
        self = real
    }
    public func defaultsValue() -> PropertyListValue { .real(self) }
}

extension Float: DefaultsStorable {
    public init?(defaultsValue value: PropertyListValue) {
        guard let real = Coercion.double(value) else { return nil }
        self = Float(real)
    }
    public func defaultsValue() -> PropertyListValue { .float(self) }
}

extension Bool: DefaultsStorable {
    public init?(defaultsValue value: PropertyListValue) {
        guard let bool = Coercion.bool(value) else { return nil }
        self = bool
    }
    public func defaultsValue() -> PropertyListValue { .bool(self) }
}

extension Date: DefaultsStorable {
    public init?(defaultsValue value: PropertyListValue) {
        guard case .date(let date) = value else { return nil }
        self = date
    }
    public func defaultsValue() -> PropertyListValue { .date(self) }
}

extension Data: DefaultsStorable {
    public init?(defaultsValue value: PropertyListValue) {
        guard case .data(let data) = value else { return nil }
        self = data
    }
    public func defaultsValue() -> PropertyListValue { .data(self) }
}

extension URL: DefaultsStorable {
    public init?(defaultsValue value: PropertyListValue) {
        guard case .string(let string) = value else { return nil }
        if string.hasPrefix("/") {
            self = URL(fileURLWithPath: string)
        } else if let url = URL(string: string) {
            self = url
        } else {
            return nil
        }
    }
    public func defaultsValue() -> PropertyListValue { .string(DefaultsBridging.storedString(for: self)) }
}

extension PropertyListValue: DefaultsStorable {
    public init?(defaultsValue value: PropertyListValue) { self = value }
    public func defaultsValue() -> PropertyListValue { self }
}

extension Array: DefaultsStorable where Element: DefaultsStorable {
    /// Nil when the value is not an array or an element does not convert.
    public init?(defaultsValue value: PropertyListValue) {
        guard case .array(let elements) = value else { return nil }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let converted = Element(defaultsValue: element) else { return nil }
            result.append(converted)
        }
        self = result
    }

    public func defaultsValue() throws(DefaultsError) -> PropertyListValue {
        var elements: [PropertyListValue] = []
        elements.reserveCapacity(count)
        for element in self { elements.append(try element.defaultsValue()) }
        return .array(elements)
    }
}

extension Dictionary: DefaultsStorable where Key == String, Value: DefaultsStorable {
    /// Nil when the value is not a dictionary or a value does not convert.
    public init?(defaultsValue value: PropertyListValue) {
        guard case .dictionary(let entries) = value else { return nil }
        var result: [String: Value] = [:]
        for (key, entry) in entries {
            guard let converted = Value(defaultsValue: entry) else { return nil }
            result[key] = converted
        }
        self = result
    }

    public func defaultsValue() throws(DefaultsError) -> PropertyListValue {
        var entries = PropertyListDictionary(minimumCapacity: count)
        for (key, value) in self.sorted(by: { $0.key < $1.key }) { entries[key] = try value.defaultsValue() }
        return .dictionary(entries)
    }
}

extension Optional: DefaultsStorable where Wrapped: DefaultsStorable {
    /// A stored value is never nil: one that does not convert fails, so the key's
    /// default is used.
    public init?(defaultsValue value: PropertyListValue) {
        guard let wrapped = Wrapped(defaultsValue: value) else { return nil }
        self = .some(wrapped)
    }

    /// - Throws: ``DefaultsError`` `.encodingFailed` for nil, which is stored by
    ///   removing the key (``Defaults/set(_:for:)`` does that) and has no value of its own.
    public func defaultsValue() throws(DefaultsError) -> PropertyListValue {
        guard let wrapped = self else { throw DefaultsError(.encodingFailed, "nil has no property-list value") }
        return try wrapped.defaultsValue()
    }
}

/// Lets ``Defaults/set(_:for:)`` store an optional's nil as a removal.
protocol OptionalDefaultsValue {
    var isNone: Bool { get }
}

extension Optional: OptionalDefaultsValue {
    var isNone: Bool { self == nil }
}
