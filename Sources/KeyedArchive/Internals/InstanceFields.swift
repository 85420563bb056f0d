/// The keys and values of one object's dictionary as stored: references stay UIDs.
struct InstanceFields {
    var keys: [String] = []
    var values: [PropertyListValue] = []

    init() {}

    init(_ dictionary: PropertyListDictionary) {
        keys = dictionary.keys
        values = dictionary.values
    }

    var count: Int { keys.count }

    /// Position of `key`, trying `hint` first: decoders read keys in the order they were
    /// written, so the search usually succeeds at once.
    @inline(__always)
    func position(of key: String, hint: Int) -> Int? {
        if hint < keys.count, keys[hint] == key { return hint }
        return keys.firstIndex(of: key)
    }

    subscript(key: String) -> PropertyListValue? {
        position(of: key, hint: 0).map { values[$0] }
    }
}

/// One `$objects` entry as read: a plain value (string, number, data) or an object
/// dictionary.
enum ArchiveObjectEntry {
    case scalar(PropertyListValue)
    case instance(InstanceFields)
}
