import Foundation

/// Apple's allowed-classes set: what a secure decode may produce, checked by class name
/// for Foundation's classes and by Swift type (or a superclass) for ``KeyedCoding`` types.
///
/// Built from the lists the Foundation-style calls take (`[NSArray.self, Item.self]`),
/// from the type a typed call asks for (`[Item]` allows `NSArray` and `Item`, as
/// `decodeArrayOfObjects(ofClass:forKey:)` does), or, to simulate a decode without the
/// model types, from archived class names.
struct AllowedClasses {
    /// Listed ``KeyedCoding`` types; a subclass of one is allowed too.
    private(set) var types: [any KeyedCoding.Type] = []
    /// Listed classes by archived name: Foundation's (`NSArray`, `NSString`…), or any
    /// name in a simulation. `NSObject` allows every class.
    private(set) var names: Set<String> = []

    init(_ entries: [Any.Type]) {
        for entry in entries { add(entry) }
    }

    init(names: some Sequence<String>) {
        self.names = Set(names)
    }

    /// Whether `NSObject` is listed, which allows every class (Apple warns about it).
    var listsNSObject: Bool { names.contains("NSObject") }

    mutating func add(_ entry: Any.Type) {
        if let type = entry as? any KeyedCoding.Type {
            if !types.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(type) }) { types.append(type) }
        } else if let name = Self.foundationName(of: entry) {
            names.insert(name)
        } else if let archivable = entry as? any KeyedArchivable.Type {
            for member in archivable._allowedClasses { add(member) }
        }
        // Anything else can never match an archived class, as in Foundation.
    }

    /// Whether an archived class (or, for an inline value, its class) is allowed by
    /// name: its name or one of its superclasses' (`chain`) is listed.
    func allows(chain: [String]) -> Bool {
        listsNSObject || chain.contains { names.contains($0) }
    }

    /// Whether instances of `type` are allowed: it or a superclass is listed.
    func allows(_ type: any KeyedCoding.Type) -> Bool {
        listsNSObject || types.contains { ArchivedClass.isType(type, kindOf: $0) }
    }

    /// The set as Apple prints it in its errors: `{(NSArray, Homepwner.Item)}`.
    var description: String {
        let listed = names.sorted() + types.map { $0.archiveClassName }
        return "{(\(listed.joined(separator: ", ")))}"
    }

    /// Foundation's classes by identity; each also stands for its mutable subclass,
    /// whose archived chain names it.
    private static let foundationClasses: [ObjectIdentifier: String] = {
        let classes: [(AnyClass, String)] = [
            (NSObject.self, "NSObject"), (NSString.self, "NSString"), (NSMutableString.self, "NSMutableString"),
            (NSNumber.self, "NSNumber"), (NSData.self, "NSData"), (NSMutableData.self, "NSMutableData"),
            (NSDate.self, "NSDate"), (NSArray.self, "NSArray"), (NSMutableArray.self, "NSMutableArray"),
            (NSDictionary.self, "NSDictionary"), (NSMutableDictionary.self, "NSMutableDictionary"),
            (NSSet.self, "NSSet"), (NSMutableSet.self, "NSMutableSet"), (NSUUID.self, "NSUUID"), (NSURL.self, "NSURL"),
        ]
        return Dictionary(uniqueKeysWithValues: classes.map { (ObjectIdentifier($0.0), $0.1) })
    }()

    private static func foundationName(of entry: Any.Type) -> String? {
        foundationClasses[ObjectIdentifier(entry)]
    }
}
