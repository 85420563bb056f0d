import Foundation

/// The classes secure decoding meets in an archive, where it meets them, and the
/// shortest list of classes that decodes it: what `keepsake unarchive --classes` prints.
///
/// Every object reachable from `$top` is visited once, breadth first, so each class is
/// reported at the shortest key path that reaches it; array and set elements are
/// written `[]`, so the elements of one collection share a path. The list assumes what
/// the books' `init(coder:)` does, reading every field with `decodeObject(forKey:)`:
/// everything inherits the set given to `unarchivedObject(ofClasses:from:)`. A model
/// whose `init(coder:)` asks for a type itself (`decodeObject(of: Date.self, forKey:)`)
/// needs less; the paths show which classes that concerns.
package struct ArchiveClassUsage {
    /// One class met under one key path.
    package struct Use: Hashable {
        /// `root[].dateCreated`: keys from `$top`, `[]` for the elements of an array or
        /// set, `.keys[]` for a dictionary's keys.
        package var path: String
        /// The archived class name (`NSMutableArray`, `Homepwner.Item`), or for an inline
        /// value, `NSString`, `NSNumber` or `NSData`.
        package var className: String
        /// An inline string, number or data: it passes unlisted, with a warning.
        package var isInline: Bool
    }

    /// The keys of `$top`: `root` for what the one-liners write, others for nibs
    /// (`IB.objectdata`) and other archives written key by key.
    package private(set) var topLevelKeys: [String] = []
    /// Each class under each path, in the order met.
    package private(set) var uses: [Use] = []
    /// The classes to list: each class met that has a class entry, named by the public
    /// class it is an instance of (`NSMutableArray` as `NSArray`), without those a listed
    /// superclass already allows. Sorted.
    package private(set) var requiredClasses: [String] = []
    /// The inline classes met, which strict mode wants listed too. Sorted.
    package private(set) var inlineClasses: [String] = []

    /// - Throws: ``KeyedArchiveError`` when the bytes are not a readable keyed archive.
    package init(archive bytes: [UInt8], limits: PropertyListLimits = .default) throws(KeyedArchiveError) {
        let decoder = try KeyedDecoder(bytes: bytes, limits: limits)
        var seen = Set<Use>()
        var visited = Set<Int>()
        var chains: [String: [String]] = [:]
        var queue: [(uid: Int, path: String)] = []
        for position in 0..<decoder.frame.fields.count {
            let key = try decoder.objects.key(at: position, in: decoder.frame.fields)
            topLevelKeys.append(key)
            if let uid = decoder.objects.uid(at: position, in: decoder.frame.fields) {
                queue.append((Int(uid.value), key))
            }
        }
        var next = 0
        while next < queue.count {
            let (uid, path) = queue[next]
            next += 1
            guard uid != 0, uid < decoder.slots.count, visited.insert(uid).inserted else { continue }
            let use: Use
            switch try decoder.readEntry(uid) {
            case .scalar(let value):
                guard let className = value.inlineClassName else { continue }
                use = Use(path: path, className: className, isInline: true)
            case .instance(let fields):
                let archivedClass = try decoder.archivedClass(of: fields, uid: uid)
                use = Use(path: path, className: archivedClass.name, isInline: false)
                chains[archivedClass.name] = archivedClass.checkedHierarchy
                let isCollection =
                    archivedClass.foundationKind.map { [.array, .set, .dictionary].contains($0) } ?? false
                for position in 0..<fields.count {
                    let key = try decoder.objects.key(at: position, in: fields)
                    guard key != "$class" else { continue }
                    let childPath = Self.path(path, key: key, inCollection: isCollection)
                    switch try decoder.objects.value(at: position, in: fields) {
                    case .uid(let child): queue.append((Int(child.value), childPath))
                    case .array(let elements):
                        for case .uid(let child) in elements { queue.append((Int(child.value), childPath)) }
                    default: continue
                    }
                }
            }
            if seen.insert(use).inserted { uses.append(use) }
        }
        inlineClasses = Set(uses.filter(\.isInline).map(\.className)).sorted()
        let met = Set(
            uses.filter { !$0.isInline }.map { FoundationClass(className: $0.className)?.baseClassName ?? $0.className }
        )
        requiredClasses = met.filter { name in
            // A class whose archived chain holds another required class is allowed by it.
            !(chains[name] ?? []).dropFirst().contains { met.contains($0) }
        }.sorted()
    }

    /// `root` + `NS.objects` of an array → `root[]`; + `NS.keys` of a dictionary →
    /// `root.keys[]`; + a field → `root.field`.
    private static func path(_ path: String, key: String, inCollection: Bool) -> String {
        guard inCollection else { return "\(path).\(key)" }
        switch key {
        case "NS.objects": return "\(path)[]"
        case "NS.keys": return "\(path).keys[]"
        default: return "\(path).\(key)"
        }
    }

    /// What secure decoding with `classNames` allowed would give, without the model
    /// types: every class is checked by its archived name (or a superclass's, from
    /// `$classes`), as Foundation checks the class it finds, and read as data. An archive
    /// with a `root` is read as `unarchivedObject(ofClasses:from:)` reads it (a `nil` root
    /// is an error); one without, key by key, as `decodeObject(of:forKey:)` reads each.
    /// Models are assumed to read their fields with `decodeObject(forKey:)`.
    /// - Throws: ``KeyedArchiveError``, the error Foundation would report.
    package static func simulate(
        _ bytes: [UInt8], allowing classNames: [String], limits: PropertyListLimits = .default
    ) throws(KeyedArchiveError) -> (objects: [(key: String, value: Any?)], warnings: [SecureCodingWarning]) {
        let decoder = try KeyedDecoder(bytes: bytes, limits: limits)
        decoder.simulatesSecureDecoding = true
        decoder.allowsGenericObjects = true
        decoder.allowedScope = .listed(AllowedClasses(names: classNames))
        let keys = decoder.allKeys.contains(ArchiveFormat.rootKey) ? [ArchiveFormat.rootKey] : decoder.allKeys
        var objects: [(key: String, value: Any?)] = []
        for key in keys {
            let object = try decoder.decodeTopLevelObject(forKey: key)
            if let error = decoder.error { throw error }
            if key == ArchiveFormat.rootKey, object == nil { throw KeyedUnarchiver.rootNotFound() }
            objects.append((key, object))
        }
        if objects.isEmpty { throw KeyedUnarchiver.rootNotFound() }
        return (objects, decoder.secureCodingWarnings)
    }
}
