/// Renders a keyed archive's object graph as text, JSON or a property list, in time and
/// space linear in the archive, whatever the archive holds.
///
/// What `keepsake unarchive` prints. The walk keeps its own stack, so a chain of
/// 100,000 objects needs no more machine stack than one object. Every object, and every
/// array, set or dictionary reached more than once, is written once; later occurrences
/// (shared objects, and back references in a cycle) are references to it, so a small
/// archive whose collections share their elements cannot fan out exponentially.
///
/// Bounds, from the archive's ``PropertyListLimits``: every value reached, references
/// included, counts against `maxObjectCount`; the output may not pass `maxByteCount`
/// bytes; property-list output may not nest deeper than `maxDepth` (readers, Apple's
/// among them, refuse deeper files). Text and JSON have no depth bound of their own:
/// each level is a value reached. Text indents at most ``maxIndentation`` levels and
/// begins deeper lines with their depth in parentheses, so deep graphs do not grow
/// quadratically.
///
/// The forms:
/// - ``Format/text``: `plutil -p` style. `<Class #n> {…}` for an object, numbered in
///   order of appearance, `<Class #n> (see above)` when it is met again; a shared
///   collection is written `#n [`, `#n set [` or `#n {` and met again as
///   `#n (see above)`.
/// - ``Format/json``, `$top` as one JSON object, each value as follows. An object is
///   `{"$id": UID, "$class": name, "$classes": [chain], field: value…}`; a value met
///   again is `{"$ref": UID}`. Arrays are JSON arrays and dictionaries with string keys
///   JSON objects, wrapped as `{"$id": UID, "$array": […]}` and given an `"$id"` member
///   when shared; other dictionaries are `{"$entries": [[key, value]…]}`, sets
///   `{"$set": […]}`. Keys that begin with `$` get another `$` in front. Data is
///   `{"$data": base64}`, a date `{"$date": ISO 8601}` (seconds since 2001 outside the
///   years 0…9999), UUIDs `{"$uuid": …}`, URLs `{"$url": …}`, non-finite reals
///   `{"$real": "nan"|"inf"|"-inf"}`, `$null` `null`.
/// - ``Format/propertyList(_:)``: the same shape as a property list, with native data,
///   dates and reals, and `$null` as `{"$null": true}`.
///
/// ```swift
/// let text = try ArchiveRenderer.render(bytes, as: .text)
/// ```
package enum ArchiveRenderer {
    package enum Format: Sendable, Hashable {
        case text
        case json
        /// An XML or binary property list.
        case propertyList(PropertyListFormat)
    }

    /// Text indents at most this many levels.
    package static let maxIndentation = 32

    /// The rendering of `bytes`, whole.
    /// - Throws: ``KeyedArchiveError``: what the unarchiver throws for a malformed
    ///   archive, `.limitExceeded` when a bound is passed, `.unsupportedValue` when the
    ///   property-list writer refuses the result.
    package static func render(_ bytes: [UInt8], as format: Format, limits: PropertyListLimits = .default)
        throws(KeyedArchiveError) -> [UInt8]
    {
        var output: [UInt8] = []
        do {
            try render(bytes, as: format, limits: limits) { output.append(contentsOf: $0) }
        } catch let error as KeyedArchiveError {
            throw error
        } catch {
            // `write` never throws.
            throw KeyedArchiveError(.unsupportedValue, "cannot render", underlyingError: error)
        }
        return output
    }

    /// Renders `bytes` in chunks as ``render(_:as:chunkSize:write:)`` does.
    /// - Throws: ``KeyedArchiveError`` as ``render(_:as:limits:)``, or what `write` throws.
    package static func render(
        _ bytes: [UInt8], as format: Format, limits: PropertyListLimits = .default, chunkSize: Int = 1 << 16,
        write: ([UInt8]) throws -> Void
    ) throws {
        try render(KeyedDecoder(bytes: bytes, limits: limits), as: format, chunkSize: chunkSize, write: write)
    }

    /// Renders the archive `decoder` has opened (and nothing has decoded from yet),
    /// within the decoder's limits, in chunks of about `chunkSize` bytes, handing each to
    /// `write` as it is ready, so text and JSON need no memory for the whole output.
    /// Every entry reached is read, and the count of values checked, before the first
    /// chunk; a bound passed later (output size) stops the rendering after some chunks.
    /// - Throws: ``KeyedArchiveError`` as ``render(_:as:limits:)``, or what `write` throws.
    package static func render(
        _ decoder: KeyedDecoder, as format: Format, chunkSize: Int = 1 << 16, write: ([UInt8]) throws -> Void
    ) throws {
        let graph = try ArchiveGraph(decoder)
        switch format {
        case .text:
            var walk = ArchiveWalk(graph: graph, sink: ArchiveTextSink())
            try walk.run(chunkSize: chunkSize, write: write)
        case .json:
            var walk = ArchiveWalk(graph: graph, sink: ArchiveJSONSink())
            try walk.run(chunkSize: chunkSize, write: write)
        case .propertyList(let format):
            var walk = ArchiveWalk(graph: graph, sink: ArchiveTreeSink(maxDepth: decoder.limits.maxDepth))
            try walk.run(chunkSize: .max, write: write)
            let written: [UInt8]
            do {
                written = try PropertyListWriter(format: format).write(walk.sink.result)
            } catch {
                throw KeyedArchiveError(.unsupportedValue, error.description, underlyingError: error)
            }
            try write(written)
        }
    }
}

/// A container the walk opens; `number` and `uid` identify it when it is shown with an
/// identity (objects always, collections when shared).
struct ArchiveContainer {
    enum Kind {
        case object(ArchivedClass)
        case array
        case set
        /// A dictionary whose keys are all strings.
        case dictionary
        /// A dictionary with other keys: `(key, value)` pairs.
        case pairs
    }

    var kind: Kind
    /// Order of first appearance among identified containers, from 1; nil when the
    /// container is shown without an identity.
    var number: Int?
    var uid: Int?

    init(kind: Kind, number: Int? = nil, uid: Int? = nil) {
        self.kind = kind
        self.number = number
        self.uid = uid
    }

    /// A container written before: `number` as ``ArchiveWalk`` records it (-1 for none).
    init(node: ArchiveGraph.Node, number: Int, uid: Int) {
        switch node {
        case .object(let archivedClass, _): kind = .object(archivedClass)
        case .set: kind = .set
        case .dictionary: kind = .dictionary
        case .leaf, .array: kind = .array
        }
        self.number = number > 0 ? number : nil
        self.uid = uid
    }
}

/// What the walk tells a renderer, in document order.
protocol ArchiveRenderSink {
    /// Bytes written so far, taken ones included (an estimate for trees).
    var byteCount: Int { get }
    /// Bytes written since the last ``take()``.
    var pendingByteCount: Int { get }
    /// The bytes written since the last call; empty for trees, which are written whole.
    mutating func take() -> [UInt8]
    mutating func beginTop() throws(KeyedArchiveError)
    /// A `$top` key, field or string dictionary key, at nesting `depth`; its value follows.
    mutating func key(_ key: String, depth: Int)
    /// An array element or set member; its value follows.
    mutating func element(_ position: Int, depth: Int)
    /// A pair of a ``ArchiveContainer/Kind/pairs`` dictionary; its key and value follow.
    mutating func pairKey(depth: Int)
    /// Between the key and the value of a pair.
    mutating func pairValue(depth: Int)
    mutating func leaf(_ leaf: ArchiveGraph.Leaf) throws(KeyedArchiveError)
    mutating func null()
    /// A container written before (or being written).
    mutating func reference(to container: ArchiveContainer)
    mutating func begin(_ container: ArchiveContainer, depth: Int) throws(KeyedArchiveError)
    mutating func end(_ container: ArchiveContainer, depth: Int)
    /// After each value of a key, element or pair, once the value is complete.
    mutating func endItem(depth: Int)
    mutating func endTop()
}

/// The walk over an ``ArchiveGraph``: depth first, with its own stack.
struct ArchiveWalk<Sink: ArchiveRenderSink> {
    let graph: ArchiveGraph
    var sink: Sink

    private struct Frame {
        enum Items {
            case entries([(key: String, value: ArchiveGraph.Value)])
            case elements([ArchiveGraph.Value])
            /// Keys at even steps, values at odd ones.
            case pairs(keys: [ArchiveGraph.Value], values: [ArchiveGraph.Value])
        }

        let items: Items
        /// nil for `$top`.
        let container: ArchiveContainer?
        let steps: Int
        var next = 0
    }

    private var stack: [Frame] = []
    /// By UID: how often a container is reached, as ``findShared()`` counts (0, 1, or
    /// 2 for more).
    private var reachCounts: [UInt8]
    /// By UID: 0 for a container not written yet, its number once written with an
    /// identity, -1 once written without one.
    private var written: [Int]
    private var numbered = 0
    private var reached = 0

    init(graph: ArchiveGraph, sink: Sink) {
        self.graph = graph
        self.sink = sink
        reachCounts = Array(repeating: 0, count: graph.objectCount)
        written = Array(repeating: 0, count: graph.objectCount)
    }

    /// Walks the graph, handing `write` the sink's bytes whenever `chunkSize` are pending
    /// and at the end.
    mutating func run(chunkSize: Int, write: ([UInt8]) throws -> Void) throws {
        try findShared()
        try sink.beginTop()
        stack.append(Frame(items: .entries(graph.top), container: nil, steps: graph.top.count))
        while !stack.isEmpty {
            let depth = stack.count - 1
            let position = stack[depth].next
            guard position < stack[depth].steps else {
                let frame = stack.removeLast()
                guard let container = frame.container else {
                    sink.endTop()
                    break
                }
                sink.end(container, depth: depth - 1)
                endValue(depth: depth - 1)
                continue
            }
            stack[depth].next += 1
            let value: ArchiveGraph.Value
            switch stack[depth].items {
            case .entries(let entries):
                sink.key(entries[position].key, depth: depth)
                value = entries[position].value
            case .elements(let elements):
                sink.element(position, depth: depth)
                value = elements[position]
            case .pairs(let keys, let values):
                if position % 2 == 0 {
                    sink.pairKey(depth: depth)
                    value = keys[position / 2]
                } else {
                    sink.pairValue(depth: depth)
                    value = values[position / 2]
                }
            }
            if try visit(value, depth: depth) { endValue(depth: depth) }
            guard sink.byteCount <= graph.limits.maxByteCount else {
                throw KeyedArchiveError(.limitExceeded, "the output is larger than \(graph.limits.maxByteCount) bytes")
            }
            if sink.pendingByteCount >= chunkSize { try write(sink.take()) }
        }
        let rest = sink.take()
        if !rest.isEmpty { try write(rest) }
    }

    /// Ends the item at `depth` once its value is complete, unless that value was the
    /// key of a pair (the frame has moved past an even step), whose value follows.
    private mutating func endValue(depth: Int) {
        if case .pairs = stack[depth].items, stack[depth].next % 2 == 1 { return }
        sink.endItem(depth: depth)
    }

    /// Writes `value`, or opens it; returns whether it is complete.
    private mutating func visit(_ value: ArchiveGraph.Value, depth: Int) throws(KeyedArchiveError) -> Bool {
        reached += 1
        guard reached <= graph.limits.maxObjectCount else {
            throw KeyedArchiveError(.limitExceeded, "more than \(graph.limits.maxObjectCount) values reached")
        }
        switch value {
        case .null:
            sink.null()
            return true
        case .scalar(let scalar):
            try sink.leaf(.scalar(scalar))
            return true
        case .array(let elements):
            try open(ArchiveContainer(kind: .array), items: .elements(elements), steps: elements.count, depth: depth)
        case .dictionary(let entries):
            try open(
                ArchiveContainer(kind: .dictionary), items: .entries(entries), steps: entries.count, depth: depth)
        case .reference(let uid):
            let node = try graph.node(uid)
            if case .leaf(let leaf) = node {
                try sink.leaf(leaf)
                return true
            }
            if written[uid] != 0 {
                sink.reference(to: ArchiveContainer(node: node, number: written[uid], uid: uid))
                return true
            }
            try open(node, uid: uid, depth: depth)
        }
        return false
    }

    private mutating func open(_ node: ArchiveGraph.Node, uid: Int, depth: Int) throws(KeyedArchiveError) {
        let kind: ArchiveContainer.Kind
        let items: Frame.Items
        let steps: Int
        switch node {
        case .leaf:
            preconditionFailure("leaves are written, not opened")
        case .object(let archivedClass, let fields):
            (kind, items, steps) = (.object(archivedClass), .entries(fields), fields.count)
        case .array(let elements):
            (kind, items, steps) = (.array, .elements(elements), elements.count)
        case .set(let members):
            (kind, items, steps) = (.set, .elements(members), members.count)
        case .dictionary(let keys, let values):
            if let entries = try stringKeyed(keys, values) {
                (kind, items, steps) = (.dictionary, .entries(entries), entries.count)
            } else {
                (kind, items, steps) = (.pairs, .pairs(keys: keys, values: values), keys.count * 2)
            }
        }
        var container = ArchiveContainer(kind: kind, uid: uid)
        if case .object = kind {
            numbered += 1
            container.number = numbered
        } else if reachCounts[uid] > 1 {
            numbered += 1
            container.number = numbered
        }
        written[uid] = container.number ?? -1
        try open(container, items: items, steps: steps, depth: depth)
    }

    private mutating func open(_ container: ArchiveContainer, items: Frame.Items, steps: Int, depth: Int)
        throws(KeyedArchiveError)
    {
        try sink.begin(container, depth: depth)
        stack.append(Frame(items: items, container: container, steps: steps))
    }

    /// The entries of a dictionary whose keys are all strings, else nil.
    private func stringKeyed(_ keys: [ArchiveGraph.Value], _ values: [ArchiveGraph.Value]) throws(KeyedArchiveError)
        -> [(key: String, value: ArchiveGraph.Value)]?
    {
        var entries: [(key: String, value: ArchiveGraph.Value)] = []
        entries.reserveCapacity(keys.count)
        for (key, value) in zip(keys, values) {
            switch key {
            case .scalar(.string(let string)):
                entries.append((string, value))
            case .reference(let uid):
                guard case .leaf(let leaf) = try graph.node(uid), let string = leaf.string else { return nil }
                entries.append((string, value))
            default:
                return nil
            }
        }
        return entries
    }

    /// Marks the containers reached more than once, reading every node reached and
    /// counting the values the walk will reach, so a malformed entry or too many values
    /// fail before anything is written.
    private mutating func findShared() throws(KeyedArchiveError) {
        var pending = graph.top.map(\.value)
        var count = 0
        while let value = pending.popLast() {
            count += 1
            guard count <= graph.limits.maxObjectCount else {
                throw KeyedArchiveError(.limitExceeded, "more than \(graph.limits.maxObjectCount) values reached")
            }
            switch value {
            case .null, .scalar:
                continue
            case .array(let elements):
                pending.append(contentsOf: elements)
            case .dictionary(let entries):
                for entry in entries { pending.append(entry.value) }
            case .reference(let uid):
                guard reachCounts[uid] == 0 else {
                    // Read on its first reach.
                    reachCounts[uid] = 2
                    continue
                }
                reachCounts[uid] = 1
                switch try graph.node(uid) {
                case .leaf: continue
                case .object(_, let fields): for field in fields { pending.append(field.value) }
                case .array(let elements), .set(let elements): pending.append(contentsOf: elements)
                case .dictionary(let keys, let values):
                    pending.append(contentsOf: keys)
                    pending.append(contentsOf: values)
                }
            }
        }
    }
}
