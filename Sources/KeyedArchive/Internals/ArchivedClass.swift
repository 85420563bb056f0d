/// A class entry (`{$classname, $classes}`) as read, shared by all its instances.
final class ArchivedClass {
    let uid: Int
    let name: String
    /// `$classes`: the class and its superclasses, most derived first.
    let chain: [String]
    /// `$classversions`, one per element of `chain`, or empty.
    let versions: [Int]
    /// `$classhints`: the classes the archiver named as substitutes for readers that do
    /// not know `name` (`classFallbacksForKeyedArchiver`), tried in order.
    let hints: [String]
    /// The Foundation value class the name denotes, if any.
    let foundationKind: FoundationClass?
    var resolution: Resolution = .unresolved

    /// What the registry made of the class, so each class entry is looked up once.
    enum Resolution {
        case unresolved
        case type(any KeyedCoding.Type)
        /// Nothing matched while the registry was at this generation.
        case none(generation: Int)
    }

    init(uid: Int, name: String, chain: [String], versions: [Int], hints: [String] = []) {
        self.uid = uid
        self.name = name
        self.chain = chain
        self.versions = versions
        self.hints = hints
        foundationKind = FoundationClass(className: name)
    }

    /// The requested type ``resolves(_:as:)`` last accepted.
    private var acceptedRequest: ObjectIdentifier?
    /// The resolved type last found to support secure coding, so it is asked once.
    private var secureType: ObjectIdentifier?

    func isSecure(_ type: any KeyedCoding.Type) -> Bool { secureType == ObjectIdentifier(type) }
    func markSecure(_ type: any KeyedCoding.Type) { secureType = ObjectIdentifier(type) }

    /// Whether `resolved` (this class's type) is `requested` or a subclass of it.
    func resolves(_ resolved: any KeyedCoding.Type, as requested: any KeyedCoding.Type) -> Bool {
        let request = ObjectIdentifier(requested)
        if acceptedRequest == request { return true }
        guard Self.isType(resolved, kindOf: requested) else { return false }
        acceptedRequest = request
        return true
    }

    /// Whether `type` is `requested` or a subclass of it.
    static func isType(_ type: Any.Type, kindOf requested: Any.Type) -> Bool {
        var current: Any.Type? = type
        while let candidate = current {
            if ObjectIdentifier(candidate) == ObjectIdentifier(requested) { return true }
            current = (candidate as? AnyClass).flatMap(_getSuperclass)
        }
        return false
    }

    /// The class and its superclasses as secure decoding checks them by name: for one of
    /// Foundation's classes, its real hierarchy (`NSMutableArray`, `NSArray`, `NSObject`),
    /// whatever `$classes` claims; for another class, `$classes` as archived.
    var checkedHierarchy: [String] {
        guard let kind = foundationKind else { return chain }
        return name == kind.baseClassName ? [name, "NSObject"] : [name, kind.baseClassName, "NSObject"]
    }

    /// Whether this class is `name` or derives from it.
    func isKind(of name: String) -> Bool {
        self.name == name || chain.contains(name)
    }

    /// The archived version of `name` if it is in the chain (matched with or without
    /// its module).
    func version(of name: String) -> Int? {
        let position =
            chain.firstIndex(of: name)
            ?? chain.firstIndex { ClassRegistry.unqualified($0) == ClassRegistry.unqualified(name) }
        guard let position else { return nil }
        return position < versions.count ? versions[position] : 0
    }
}
