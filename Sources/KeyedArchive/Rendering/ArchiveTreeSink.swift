import Foundation

/// ``ArchiveRenderer``'s property list: the shape of its JSON as a value tree, within
/// a nesting depth that property-list readers accept.
struct ArchiveTreeSink: ArchiveRenderSink {
    private(set) var byteCount = 0
    var pendingByteCount: Int { 0 }
    /// The finished `$top` dictionary.
    var result: PropertyListValue { finished ?? .dictionary([:]) }

    private let maxDepth: Int
    private var finished: PropertyListValue?

    /// A container being filled: its members, and how it is wrapped when it closes.
    private struct Builder {
        var elements: [PropertyListValue] = []
        var entries = PropertyListDictionary()
        var pendingKey: String?
        var pendingPairKey: PropertyListValue?
        var isDictionary: Bool
        var isPairs = false
        /// Members of the wrapping dictionary (`$id`, `$class`…) and the key the
        /// array goes under (`$array`, `$set`, `$entries`), if wrapped.
        var wrapper: PropertyListDictionary?
        var wrapperKey: String?
        /// Property-list levels this container takes (1, or 2 when wrapped).
        var levels: Int
    }

    private var builders: [Builder] = []
    private var nesting = 0

    init(maxDepth: Int) {
        self.maxDepth = maxDepth
    }

    mutating func take() -> [UInt8] { [] }

    mutating func beginTop() throws(KeyedArchiveError) {
        try push(Builder(isDictionary: true, levels: 1))
    }

    mutating func key(_ key: String, depth: Int) {
        builders[builders.count - 1].pendingKey = ArchiveJSONSink.escaped(key)
    }

    mutating func element(_ position: Int, depth: Int) {}
    mutating func pairKey(depth: Int) {}
    mutating func pairValue(depth: Int) {}
    mutating func endItem(depth: Int) {}

    mutating func leaf(_ leaf: ArchiveGraph.Leaf) throws(KeyedArchiveError) {
        switch leaf {
        case .scalar(let value):
            byteCount += 8 + value.payloadByteCount
            attach(value)
        case .asciiText(let text):
            byteCount += 8 + text.count
            attach(.string(String(decoding: text, as: UTF8.self)))
        case .uuid(let uuid):
            try attachWrapped(["$uuid": .string(uuid.uuidString)], bytes: 36)
        case .url(let url):
            let text = url.absoluteString
            try attachWrapped(["$url": .string(text)], bytes: text.utf8.count)
        }
    }

    mutating func null() {
        byteCount += 8
        // One level below the deepest allowed container: always within the bound.
        attach(["$null": true])
    }

    mutating func reference(to container: ArchiveContainer) {
        byteCount += 16
        attach(["$ref": .integer(Int64(container.uid ?? 0))])
    }

    mutating func begin(_ container: ArchiveContainer, depth: Int) throws(KeyedArchiveError) {
        let identity: PropertyListValue? = container.number != nil ? container.uid.map { .integer(Int64($0)) } : nil
        var builder: Builder
        switch container.kind {
        case .object(let archivedClass):
            builder = Builder(isDictionary: true, levels: 1)
            builder.entries["$id"] = .integer(Int64(container.uid ?? 0))
            builder.entries["$class"] = .string(archivedClass.name)
            builder.entries["$classes"] = .array(archivedClass.chain.map(PropertyListValue.string))
            byteCount += 32 + archivedClass.name.utf8.count + archivedClass.chain.reduce(0) { $0 + $1.utf8.count }
        case .dictionary:
            builder = Builder(isDictionary: true, levels: 1)
            if let identity { builder.entries["$id"] = identity }
        case .array, .set, .pairs:
            builder = Builder(isDictionary: false, levels: 1)
            builder.isPairs = container.kind.isPairs
            let key = container.kind.isPairs ? "$entries" : container.kind.isSet ? "$set" : "$array"
            if identity != nil || !container.kind.isArray {
                builder.wrapper = identity.map { ["$id": $0] } ?? [:]
                builder.wrapperKey = key
                builder.levels = 2
            }
        }
        byteCount += 8
        try push(builder)
    }

    mutating func end(_ container: ArchiveContainer, depth: Int) {
        attach(pop())
    }

    mutating func endTop() {
        finished = pop()
    }

    private mutating func push(_ builder: Builder) throws(KeyedArchiveError) {
        // Each container may hold a wrapped leaf ({"$ref": n}) or a pair ([k, v]): one
        // more level than its own.
        guard nesting + builder.levels + (builder.isPairs ? 2 : 1) <= maxDepth else {
            throw KeyedArchiveError(
                .limitExceeded,
                "the graph nests deeper than a property list may (\(maxDepth) levels); write it as text or JSON")
        }
        nesting += builder.levels
        builders.append(builder)
    }

    private mutating func pop() -> PropertyListValue {
        let builder = builders.removeLast()
        nesting -= builder.levels
        let value: PropertyListValue = builder.isDictionary ? .dictionary(builder.entries) : .array(builder.elements)
        guard var wrapper = builder.wrapper, let key = builder.wrapperKey else { return value }
        wrapper[key] = value
        return .dictionary(wrapper)
    }

    private mutating func attachWrapped(_ value: PropertyListDictionary, bytes: Int) throws(KeyedArchiveError) {
        byteCount += 8 + bytes
        attach(.dictionary(value))
    }

    /// Adds a finished value to the innermost container.
    private mutating func attach(_ value: PropertyListValue) {
        let last = builders.count - 1
        if builders[last].isDictionary {
            builders[last].entries[builders[last].pendingKey ?? ""] = value
        } else if builders[last].isPairs {
            if let key = builders[last].pendingPairKey {
                builders[last].elements.append([key, value])
                builders[last].pendingPairKey = nil
            } else {
                builders[last].pendingPairKey = value
            }
        } else {
            builders[last].elements.append(value)
        }
    }
}

extension ArchiveContainer.Kind {
    var isPairs: Bool { if case .pairs = self { true } else { false } }
    var isSet: Bool { if case .set = self { true } else { false } }
    var isArray: Bool { if case .array = self { true } else { false } }
}
