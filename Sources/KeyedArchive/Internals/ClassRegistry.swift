/// Maps archived class names to Swift types and says which types may be decoded.
///
/// A name resolves, in order, through an explicit ``setClass(_:forClassName:)``
/// mapping, then the ``KeyedCoding/archiveClassName`` of an allowed type, then the
/// unqualified part of that name (`Homepwner.Item` finds an allowed `MyApp.Item`) when
/// exactly one allowed type has it. Every type the registry knows is allowed.
struct ClassRegistry {
    private var explicit: [String: any KeyedCoding.Type] = [:]
    private var byName: [String: any KeyedCoding.Type] = [:]
    /// `nil` marks an unqualified name two allowed types share.
    private var byUnqualifiedName: [String: (any KeyedCoding.Type)?] = [:]
    private var allowed: Set<ObjectIdentifier> = []

    mutating func setClass(_ type: any KeyedCoding.Type, forClassName name: String) {
        explicit[name] = type
        allow(type)
    }

    func explicitClass(forClassName name: String) -> (any KeyedCoding.Type)? {
        explicit.isEmpty ? nil : explicit[name]
    }

    mutating func allow(_ type: any KeyedCoding.Type) {
        guard allowed.insert(ObjectIdentifier(type)).inserted else { return }
        let name = type.archiveClassName
        byName[name] = type
        let short = Self.unqualified(name)
        if let existing = byUnqualifiedName[short] {
            if let existing, ObjectIdentifier(existing) != ObjectIdentifier(type) {
                byUnqualifiedName[short] = .some(nil)
            }
        } else {
            byUnqualifiedName[short] = type
        }
    }

    func isAllowed(_ type: any KeyedCoding.Type) -> Bool {
        allowed.contains(ObjectIdentifier(type))
    }

    /// The type `name` resolves to.
    func type(forName name: String) -> (any KeyedCoding.Type)? {
        explicit[name] ?? byName[name] ?? byUnqualifiedName[Self.unqualified(name)] ?? nil
    }

    /// `Homepwner.Item` → `Item`; Objective-C names are returned unchanged.
    static func unqualified(_ name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return name }
        return String(name[name.index(after: dot)...])
    }

    /// A type of this process known by `name`: the Swift class whose module-qualified
    /// name it is, else the first type the process archived under that name. For
    /// insecure decoding and for telling a disallowed class from an unknown one.
    static func runtimeType(named name: String) -> (any KeyedCoding.Type)? {
        ProcessClassNames.swiftType(named: name) ?? ProcessClassNames.archivedType(named: name)
    }
}
