import AppRuntime
import AppSandbox
import PropertyList

extension Defaults {
    /// A key with its value type and the value read when nothing is stored.
    ///
    /// ```swift
    /// extension Defaults.Key where Value == Int {
    ///     static let rows = Defaults.Key("cardMatrixRows", default: 4)
    /// }
    /// defaults[.rows] = 5
    /// let rows = defaults[.rows]   // Int
    /// ```
    public struct Key<Value: DefaultsStorable>: Sendable {
        public let name: String
        public let defaultValue: Value

        public init(_ name: String, default defaultValue: Value) {
            self.name = name
            self.defaultValue = defaultValue
        }
    }

    /// The key's value through the search list, or its default when absent or not
    /// convertible. Setting stores it; a value that cannot be encoded (only possible
    /// for `Codable` types) is reported, not stored: use ``set(_:for:)`` to catch it.
    public subscript<Value>(key: Key<Value>) -> Value {
        get {
            self[key.name].flatMap(Value.init(defaultsValue:)) ?? key.defaultValue
        }
        set {
            do throws(DefaultsError) {
                try set(newValue, for: key)
            } catch {
                report(error)
            }
        }
    }

    /// Stores `value` under the key; nil (for an optional value type) removes it.
    /// - Throws: ``DefaultsError`` `.encodingFailed` when it cannot be represented.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws(DefaultsError) {
        if let optional = value as? any OptionalDefaultsValue, optional.isNone {
            removeObject(forKey: key.name)
            return
        }
        do throws(DefaultsError) {
            store(try value.defaultsValue(), forKey: key.name)
        } catch {
            var error = error
            error.keyPath = key.name + (error.keyPath.map { $0.isEmpty ? "" : ".\($0)" } ?? "")
            throw error
        }
    }

    /// Removes the key from the primary domain; its default shows again.
    public func removeValue<Value>(for key: Key<Value>) {
        removeObject(forKey: key.name)
    }

    /// The key's value after every change, as an asynchronous sequence.
    public func values<Value>(for key: Key<Value>) -> AsyncStream<Value> {
        ChangeStreams.observing { yield in
            observe(key.name) { change in yield(change.newValue.flatMap(Value.init(defaultsValue:)) ?? key.defaultValue)
            }
        }
    }
}
