/// The containers a text parser has open and their finished children, kept on the
/// heap rather than in recursion, so a deeply nested input ends in `.limitExceeded`
/// however high `maxDepth` is set and never exhausts the thread's stack.
struct ContainerStack<Kind: Equatable> {
    /// An open container: its parser-specific kind and where its children start.
    struct Frame {
        let kind: Kind
        let isDictionary: Bool
        fileprivate let valueStart: Int
        fileprivate let keyStart: Int
    }

    private var frames: [Frame] = []
    private var values: [PropertyListValue] = []
    private var keys: [String] = []

    /// The innermost open container.
    var innermost: Frame? { frames.last }
    var depth: Int { frames.count }

    mutating func open(_ kind: Kind, isDictionary: Bool) {
        frames.append(Frame(kind: kind, isDictionary: isDictionary, valueStart: values.count, keyStart: keys.count))
    }

    /// Adds a finished value to the innermost container.
    mutating func append(_ value: PropertyListValue) {
        values.append(value)
    }

    /// Adds the key the next value of the innermost dictionary goes under.
    mutating func appendKey(_ key: String) {
        keys.append(key)
    }

    /// Closes the innermost container and returns it; in a dictionary a later duplicate
    /// key replaces the earlier value.
    mutating func close() -> PropertyListValue {
        let frame = frames.removeLast()
        defer {
            values.removeSubrange(frame.valueStart...)
            keys.removeSubrange(frame.keyStart...)
        }
        guard frame.isDictionary else { return .array(Array(values[frame.valueStart...])) }
        var dictionary = PropertyListDictionary(minimumCapacity: keys.count - frame.keyStart)
        for (key, value) in zip(keys[frame.keyStart...], values[frame.valueStart...]) {
            dictionary.updateValue(value, forKey: key)
        }
        return .dictionary(dictionary)
    }
}
