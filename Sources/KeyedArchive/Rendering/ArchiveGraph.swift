import Foundation

/// A keyed archive's object graph as stored: one node per `$objects` entry, read on
/// demand and kept, with references left as UIDs.
///
/// What ``ArchiveRenderer`` walks. Unlike the values ``KeyedUnarchiver`` returns, every
/// array, set and dictionary keeps the identity of its UID, so a collection reached
/// twice (shared, or inside itself) is recognised as the same node. Foundation's value
/// classes that refer to nothing else worth showing (`NSString`, `NSData`, `NSDate`,
/// `NSUUID`, `NSURL`) are decoded by the unarchiver's own rules into leaves; objects of
/// any other class become ``Node/object(_:fields:)``. Which kind an
/// entry is follows its `$classname` only, as the unarchiver decides: `$classes` is
/// shown, never trusted.
///
/// Reading counts against the archive's ``PropertyListLimits`` as the unarchiver does.
///
/// ```swift
/// let graph = try ArchiveGraph(KeyedDecoder(bytes: bytes))
/// for (key, value) in graph.top { print(key, value) }
/// ```
final class ArchiveGraph {
    /// A value as a `$top` key, a field or an element holds it.
    enum Value {
        /// `$null`.
        case null
        /// The `$objects` entry with this UID (never 0).
        case reference(Int)
        /// A string, number, boolean, date or data stored in place.
        case scalar(PropertyListValue)
        /// An array stored in place in an object's dictionary.
        case array([Value])
        /// A dictionary stored in place in an object's dictionary.
        case dictionary([(key: String, value: Value)])
    }

    /// A value that refers to nothing.
    enum Leaf {
        /// A string, number, boolean, date or data.
        case scalar(PropertyListValue)
        /// An ASCII string of a binary archive, where it lies in the document, which
        /// lives as long as the graph: most strings, shown without making a `String`.
        case asciiText(UnsafeRawBufferPointer)
        case uuid(UUID)
        case url(URL)

        /// The leaf's string, if it is one.
        var string: String? {
            switch self {
            case .scalar(.string(let string)): string
            case .asciiText(let text): String(decoding: text, as: UTF8.self)
            default: nil
            }
        }
    }

    /// One `$objects` entry.
    enum Node {
        case leaf(Leaf)
        /// An `NSArray`, or a plain array entry.
        case array([Value])
        /// An `NSSet`, in stored order.
        case set([Value])
        /// An `NSDictionary`: `keys[i]` maps to `values[i]`.
        case dictionary(keys: [Value], values: [Value])
        /// An object of any other class.
        case object(ArchivedClass, fields: [(key: String, value: Value)])
    }

    /// The keys of `$top` with their values, in stored order.
    let top: [(key: String, value: Value)]
    /// The number of `$objects` entries: UIDs are `1..<objectCount`.
    var objectCount: Int { decoder.slots.count }
    var limits: PropertyListLimits { decoder.limits }

    private let decoder: KeyedDecoder
    /// Nodes read so far, by UID. Each access is short and never spans a call that could
    /// reach it again, so the dynamic exclusivity checks are off, except in debug builds
    /// (KEEPSAKE_EXCLUSIVITY_CHECKS, Package.swift).
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    private var nodes: [Node?]

    /// Reads the `$top` of the archive `decoder` has opened, which nothing has decoded
    /// from yet.
    /// - Throws: ``KeyedArchiveError`` when a `$top` value is malformed.
    init(_ decoder: KeyedDecoder) throws(KeyedArchiveError) {
        let fields = decoder.frame.fields
        var top: [(key: String, value: Value)] = []
        top.reserveCapacity(fields.count)
        for position in 0..<fields.count {
            let key = try decoder.objects.key(at: position, in: fields)
            do {
                top.append((key, try Self.value(decoder.objects.value(at: position, in: fields), decoder: decoder)))
            } catch {
                throw error.prefixed(by: key)
            }
        }
        self.decoder = decoder
        self.top = top
        nodes = Array(repeating: nil, count: decoder.slots.count)
    }

    /// The entry with UID `uid`, read once.
    /// - Throws: ``KeyedArchiveError`` when the entry is malformed: a dictionary without
    ///   a valid `$class`, a Foundation collection without its references, a `nil`
    ///   element, a class description used as an object.
    func node(_ uid: Int) throws(KeyedArchiveError) -> Node {
        if let known = nodes[uid] { return known }
        let node = try read(uid)
        nodes[uid] = node
        return node
    }

    private func read(_ uid: Int) throws(KeyedArchiveError) -> Node {
        if case .classDescription(let archivedClass) = decoder.slots[uid] {
            throw KeyedArchiveError(
                .invalidObject, "UID \(uid) is the class description of \(archivedClass.name), not an object", uid: uid)
        }
        if let text = try decoder.readASCIIText(uid) { return .leaf(.asciiText(text)) }
        let entry = try decoder.readEntry(uid)
        guard case .instance(let fields) = entry else {
            guard case .scalar(let value) = entry else { preconditionFailure("two cases") }
            switch value {
            case .uid:
                throw KeyedArchiveError(.invalidObject, "an $objects entry is itself a UID", uid: uid)
            case .array(let elements):
                return .array(try Self.values(elements, decoder: decoder))
            default:
                return .leaf(.scalar(value))
            }
        }
        let archivedClass = try decoder.archivedClass(of: fields, uid: uid)
        do throws(KeyedArchiveError) {
            switch archivedClass.foundationKind {
            case .string?: return .leaf(.scalar(.string(try decoder.decodeString(uid: uid, entry: entry))))
            case .data?: return .leaf(.scalar(.data(try decoder.decodeData(uid: uid, entry: entry))))
            case .date?: return .leaf(.scalar(.date(try decoder.decodeDate(uid: uid, entry: entry))))
            case .uuid?: return .leaf(.uuid(try decoder.decodeUUID(uid: uid, entry: entry)))
            case .url?: return .leaf(.url(try decoder.decodeURL(uid: uid, entry: entry)))
            case .array?: return .array(try references(fields, key: "NS.objects", uid: uid))
            case .set?: return .set(try references(fields, key: "NS.objects", uid: uid))
            case .dictionary?:
                let keys = try references(fields, key: "NS.keys", uid: uid)
                let values = try references(fields, key: "NS.objects", uid: uid)
                guard keys.count == values.count else {
                    throw KeyedArchiveError(
                        .invalidObject, "NSDictionary with \(keys.count) keys but \(values.count) objects", uid: uid)
                }
                return .dictionary(keys: keys, values: values)
            case nil:
                return try object(fields, archivedClass: archivedClass, uid: uid)
            }
        } catch {
            throw error.located(uid: uid, className: archivedClass.name)
        }
    }

    /// A Foundation collection's references; collections cannot hold `nil`.
    private func references(_ fields: InstanceFields, key: String, uid: Int) throws(KeyedArchiveError) -> [Value] {
        let references = try decoder.referenceList(fields, key: key, uid: uid)
        if let position = references.firstIndex(of: 0) {
            throw KeyedArchiveError(.invalidObject, "a collection element is nil", keyPath: "\(key)[\(position)]")
        }
        return references.map(Value.reference)
    }

    private func object(_ fields: InstanceFields, archivedClass: ArchivedClass, uid: Int) throws(KeyedArchiveError)
        -> Node
    {
        var values: [(key: String, value: Value)] = []
        values.reserveCapacity(fields.count)
        for position in 0..<fields.count {
            let key = try decoder.objects.key(at: position, in: fields)
            guard key != "$class" else { continue }
            do {
                // Most fields are references: read as such, without making a value.
                if let reference = try decoder.objects.reference(at: position, in: fields) {
                    values.append((key, try Self.value(reference, decoder: decoder)))
                } else {
                    values.append(
                        (key, try Self.value(decoder.objects.value(at: position, in: fields), decoder: decoder)))
                }
            } catch {
                throw error.prefixed(by: key)
            }
        }
        return .object(archivedClass, fields: values)
    }

    /// A stored value with its UIDs checked. Inline containers were read within the
    /// depth limit, so this recursion is bounded by ``PropertyListLimits/maxDepth``.
    private static func value(_ stored: PropertyListValue, decoder: KeyedDecoder) throws(KeyedArchiveError) -> Value {
        switch stored {
        case .uid(let reference):
            return try value(reference, decoder: decoder)
        case .array(let elements):
            return .array(try values(elements, decoder: decoder))
        case .dictionary(let dictionary):
            var entries: [(key: String, value: Value)] = []
            entries.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                do {
                    entries.append((key, try value(element, decoder: decoder)))
                } catch {
                    throw error.prefixed(by: key)
                }
            }
            return .dictionary(entries)
        default:
            return .scalar(stored)
        }
    }

    /// A reference, checked: `$null` or an entry.
    private static func value(_ reference: PropertyListUID, decoder: KeyedDecoder) throws(KeyedArchiveError) -> Value {
        let uid = try decoder.checkedUID(reference)
        return uid == 0 ? .null : .reference(uid)
    }

    private static func values(_ elements: [PropertyListValue], decoder: KeyedDecoder) throws(KeyedArchiveError)
        -> [Value]
    {
        var result: [Value] = []
        result.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            do throws(KeyedArchiveError) {
                result.append(try value(element, decoder: decoder))
            } catch {
                throw error.prefixed(by: "[\(position)]")
            }
        }
        return result
    }
}
