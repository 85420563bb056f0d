/// A weak reference to a generic object, as stored inside another; hashed by the
/// identity of the object it was made for.
struct WeakObject: Hashable {
    weak var object: ArchivedObject?
    let identity: ObjectIdentifier

    init(_ object: ArchivedObject) {
        self.object = object
        identity = ObjectIdentifier(object)
    }

    static func == (lhs: WeakObject, rhs: WeakObject) -> Bool { lhs.identity == rhs.identity }
    func hash(into hasher: inout Hasher) { hasher.combine(identity) }

    /// `value` with every weak reference replaced by its object (dropped when gone).
    static func resolved(_ value: Any) -> Any? {
        switch value {
        case let weak as WeakObject:
            return weak.object
        case let array as [Any]:
            return array.compactMap(resolved)
        case let dictionary as [AnyHashable: Any]:
            var result: [AnyHashable: Any] = [:]
            for (key, element) in dictionary {
                if let key = resolved(key.base) as? AnyHashable, let element = resolved(element) {
                    result[key] = element
                }
            }
            return result
        case let dictionary as [String: Any]:
            return dictionary.compactMapValues(resolved)
        case let set as Set<AnyHashable>:
            return Set(set.compactMap { resolved($0.base) as? AnyHashable })
        case let element as ArchivedElement:
            return resolved(element.value).map { ArchivedElement(uid: element.uid, value: $0) }
        default:
            return value
        }
    }
}
