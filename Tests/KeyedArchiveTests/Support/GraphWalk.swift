import KeyedArchive

/// The distinct generic objects reachable from decoded values, found without recursion.
enum GraphWalk {
    static func objects(from roots: [Any]) -> [ArchivedObject] {
        var seen = Set<ObjectIdentifier>()
        var found: [ArchivedObject] = []
        var stack = roots
        while let value = stack.popLast() {
            switch value {
            case let object as ArchivedObject:
                guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
                found.append(object)
                stack.append(contentsOf: object.fields.compactMap(\.value))
            case let array as [Any]: stack.append(contentsOf: array)
            case let dictionary as [AnyHashable: Any]:
                stack.append(contentsOf: dictionary.keys.map(\.base))
                stack.append(contentsOf: dictionary.values)
            case let dictionary as [String: Any]: stack.append(contentsOf: dictionary.values)
            case let set as Set<AnyHashable>: stack.append(contentsOf: set.map(\.base))
            case let element as ArchivedElement: stack.append(element.value)
            default: break
            }
        }
        return found
    }
}
