/// The keys and values of one object's dictionary, as stored: references stay UIDs.
///
/// For a binary archive this is only where the dictionary's references start in the
/// bytes; keys are compared and values decoded in place by ``ArchiveObjects``, so
/// reading an object allocates nothing for its dictionary. Text archives keep the
/// dictionary read by the property-list reader.
struct InstanceFields {
    enum Storage {
        case tree(keys: [String], values: [PropertyListValue])
        /// The dictionary's references start at byte `payload`: `count` keys, then `count` values.
        case binary(payload: Int)
    }

    let storage: Storage
    let count: Int

    init(_ dictionary: PropertyListDictionary) {
        storage = .tree(keys: dictionary.keys, values: dictionary.values)
        count = dictionary.count
    }

    init(payload: Int, count: Int) {
        storage = .binary(payload: payload)
        self.count = count
    }
}

/// One `$objects` entry as read: a plain value (string, number, data) or an object
/// dictionary.
enum ArchiveObjectEntry {
    case scalar(PropertyListValue)
    case instance(InstanceFields)
}
