/// Reading and editing a value tree by key path, with `plutil`'s rules.
///
/// Corresponds to `plutil -extract`, `-insert`, `-replace` and `-remove`.
///
/// ```swift
/// var settings: PropertyListValue = ["items": ["a", "b"]]
/// try settings.insert("c", at: "items.2")
/// try settings.remove(at: "items.0")
/// print(settings.value(at: "items.0") ?? "-")  // "b"
/// ```
extension PropertyListValue {
    /// The value `keyPath` leads to; `nil` when a key is missing, an index lies outside
    /// its array, a component is empty or a step meets a value that is not a container.
    public func value(at keyPath: PropertyListKeyPath) -> PropertyListValue? {
        var current = self
        for component in keyPath.components {
            guard !component.isEmpty, let next = current.child(component) else { return nil }
            current = next
        }
        return current
    }

    /// Puts `value` at `keyPath`. The last component names a new key of a dictionary or
    /// an index of an array, where `value` is inserted (the array's count appends).
    /// With `appending`, an existing array at `keyPath` gets `value` at its end instead
    /// (where the key has no value yet, `value` is put there, as `plutil` does).
    /// - Throws: ``PropertyListError``: `.keyPathNotFound` when the path's parent does
    ///   not exist; `.invalidEdit` when the key exists already or `appending` meets
    ///   something other than an array. The value is unchanged when it throws.
    public mutating func insert(
        _ value: PropertyListValue, at keyPath: PropertyListKeyPath, appending: Bool = false
    ) throws(PropertyListError) {
        try edit(keyPath.components[...], keyPath) { (parent, last) throws(PropertyListError) in
            switch parent {
            case .dictionary(var dictionary):
                if let existing = dictionary[last] {
                    guard appending else { throw Self.editError(.invalidEdit, "a value exists at", keyPath) }
                    guard case .array(var elements) = existing else {
                        throw Self.editError(.invalidEdit, "appending to a non-array at", keyPath)
                    }
                    elements.append(value)
                    dictionary[last] = .array(elements)
                } else {
                    dictionary[last] = value
                }
                parent = .dictionary(dictionary)
            case .array(var elements):
                guard let position = Int(last), position >= 0, position <= elements.count else {
                    throw Self.editError(.keyPathNotFound, "no array index for", keyPath)
                }
                if appending {
                    guard position < elements.count, case .array(var inner) = elements[position] else {
                        throw Self.editError(.invalidEdit, "appending to a non-array at", keyPath)
                    }
                    inner.append(value)
                    elements[position] = .array(inner)
                } else {
                    elements.insert(value, at: position)
                }
                parent = .array(elements)
            default:
                throw Self.editError(.keyPathNotFound, "no container to insert into at", keyPath)
            }
        }
    }

    /// Puts `value` at `keyPath`, over the value there if there is one: a dictionary
    /// key is set, an array element replaced (the array's count appends).
    /// - Throws: ``PropertyListError`` `.keyPathNotFound` when the path's parent does not
    ///   exist or an index lies past the array's end. The value is unchanged when it throws.
    public mutating func replace(_ value: PropertyListValue, at keyPath: PropertyListKeyPath) throws(PropertyListError)
    {
        try edit(keyPath.components[...], keyPath) { (parent, last) throws(PropertyListError) in
            switch parent {
            case .dictionary(var dictionary):
                dictionary[last] = value
                parent = .dictionary(dictionary)
            case .array(var elements):
                guard let position = Int(last), position >= 0, position <= elements.count else {
                    throw Self.editError(.keyPathNotFound, "no array index for", keyPath)
                }
                if position == elements.count { elements.append(value) } else { elements[position] = value }
                parent = .array(elements)
            default:
                throw Self.editError(.keyPathNotFound, "no container to replace in at", keyPath)
            }
        }
    }

    /// Removes the value at `keyPath`.
    /// - Throws: ``PropertyListError`` `.keyPathNotFound` when there is no value there,
    ///   `.invalidEdit` for the empty path (the root cannot be removed). The value is
    ///   unchanged when it throws.
    public mutating func remove(at keyPath: PropertyListKeyPath) throws(PropertyListError) {
        try edit(keyPath.components[...], keyPath) { (parent, last) throws(PropertyListError) in
            switch parent {
            case .dictionary(var dictionary):
                guard dictionary.removeValue(forKey: last) != nil else {
                    throw Self.editError(.keyPathNotFound, "no value to remove at", keyPath)
                }
                parent = .dictionary(dictionary)
            case .array(var elements):
                guard let position = Int(last), elements.indices.contains(position) else {
                    throw Self.editError(.keyPathNotFound, "no value to remove at", keyPath)
                }
                elements.remove(at: position)
                parent = .array(elements)
            default:
                throw Self.editError(.keyPathNotFound, "no value to remove at", keyPath)
            }
        }
    }

    /// Walks to the parent of the path's last component and lets `change` edit it,
    /// writing the changed containers back on the way up. Nothing is written back when
    /// `change` throws.
    private mutating func edit(
        _ components: ArraySlice<String>, _ keyPath: PropertyListKeyPath,
        _ change: (inout PropertyListValue, String) throws(PropertyListError) -> Void
    ) throws(PropertyListError) {
        guard let first = components.first, !first.isEmpty else {
            throw Self.editError(
                components.isEmpty ? .invalidEdit : .keyPathNotFound, "an empty key path component in", keyPath)
        }
        guard components.count > 1 else {
            try change(&self, first)
            return
        }
        guard var child = child(first) else {
            throw Self.editError(.keyPathNotFound, "no value at \"\(first)\" on the way to", keyPath)
        }
        try child.edit(components.dropFirst(), keyPath, change)
        switch self {
        case .dictionary(var dictionary):
            dictionary[first] = child
            self = .dictionary(dictionary)
        case .array(var elements):
            elements[Int(first)!] = child
            self = .array(elements)
        default:
            preconditionFailure("child(_:) found a child in a scalar")
        }
    }

    /// The value under one key path component: a key of a dictionary, an index of an array.
    private func child(_ component: String) -> PropertyListValue? {
        switch self {
        case .dictionary(let dictionary):
            return dictionary[component]
        case .array(let elements):
            guard let position = Int(component), elements.indices.contains(position) else { return nil }
            return elements[position]
        default:
            return nil
        }
    }

    private static func editError(_ code: PropertyListError.Code, _ what: String, _ keyPath: PropertyListKeyPath)
        -> PropertyListError
    {
        PropertyListError(code, "\(what) key path \(keyPath)", keyPath: keyPath.description)
    }
}
