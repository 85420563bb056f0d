/// Answers about parts of a document without building its tree: the kind of an object,
/// the object numbers inside a container, and the object a key path leads to.
///
/// Opening the document checked its trailer and offset table; each answer here checks
/// what the objects it reads declare, as the full read does, so a malformed object
/// is the same error whichever way it is reached. Nothing is allocated beyond the
/// answer itself.
///
/// ```swift
/// let plist = try BinaryPropertyList(bytes: bytes)
/// if let name = try plist.value(at: "50000.name") { print(name) }
/// ```
extension BinaryPropertyList {
    /// The object numbers of a container's elements (for a dictionary, its keys' or its
    /// values'), read from the document as they are visited. Every number was checked
    /// against the object count when the collection was made.
    public struct ObjectNumbers: RandomAccessCollection, Sendable {
        let document: BinaryPropertyList
        let payload: Int
        public let count: Int

        public var startIndex: Int { 0 }
        public var endIndex: Int { count }

        public subscript(position: Int) -> Int {
            precondition(position >= 0 && position < count, "position \(position) outside 0..<\(count)")
            let size = document.trailer.referenceSize
            return Int(
                BinaryPropertyListTrailer.readSized(document.bytes.raw, at: payload + position * size, size: size))
        }
    }

    /// The kind of object `index`, from its marker and length alone.
    /// - Throws: ``PropertyListError``: `.referenceOutOfRange` for a bad `index`, or
    ///   what the full read reports for a malformed marker or length.
    public func kind(ofObject index: Int) throws(PropertyListError) -> PropertyListValue.Kind {
        switch try header(ofObject: index).kind {
        case .boolean: .boolean
        case .integer: .integer
        case .real: .real
        case .date: .date
        case .data: .data
        case .asciiString, .utf16String: .string
        case .uid: .uid
        case .array: .array
        case .dictionary: .dictionary
        }
    }

    /// The elements of array `index`; `nil` when the object is not an array.
    /// - Throws: ``PropertyListError`` for a malformed array or an element reference
    ///   that names no object.
    public func elements(ofArray index: Int) throws(PropertyListError) -> ObjectNumbers? {
        let header = try header(ofObject: index)
        guard header.kind == .array else { return nil }
        try checkReferences(at: header.payload, count: header.count, objectIndex: index)
        return ObjectNumbers(document: self, payload: header.payload, count: header.count)
    }

    /// The keys and the values of dictionary `index`, position by position; `nil` when
    /// the object is not a dictionary. A key is a string object; read it with
    /// ``value(at:)-(Int?)``.
    /// - Throws: ``PropertyListError`` for a malformed dictionary or a reference that
    ///   names no object.
    public func entries(ofDictionary index: Int) throws(PropertyListError) -> (
        keys: ObjectNumbers, values: ObjectNumbers
    )? {
        let header = try header(ofObject: index)
        guard header.kind == .dictionary else { return nil }
        try checkReferences(at: header.payload, count: header.count * 2, objectIndex: index)
        let valuesStart = header.payload + header.count * trailer.referenceSize
        return (
            ObjectNumbers(document: self, payload: header.payload, count: header.count),
            ObjectNumbers(document: self, payload: valuesStart, count: header.count)
        )
    }

    /// The object under `key` in dictionary `index`; keys compare as Swift strings do,
    /// and when a key occurs twice the later one counts, as in the full read. (One
    /// corner differs: a dictionary of twelve or fewer entries holding two spellings of
    /// one key, a Kelvin sign and `K`, keeps both in the full read, which finds the
    /// first.) `nil` when the key is absent or the object is not a dictionary.
    /// - Throws: ``PropertyListError`` for a malformed dictionary, a key that is not a
    ///   string or a value reference that names no object.
    public func objectIndex(forKey key: String, inDictionary index: Int) throws(PropertyListError) -> Int? {
        let header = try header(ofObject: index)
        guard header.kind == .dictionary else { return nil }
        let wanted = WantedKey(key)
        try bytes.load(header.payload..<header.payload + header.count * 2 * trailer.referenceSize)
        return try withReader { (reader) throws(PropertyListError) -> Int? in
            var found: Int?
            // Each key object is compared once, however many entries refer to it: a
            // small file of many references to one long key must not cost its square.
            var compared: [Int: Bool] = [:]
            for position in 0..<header.count {
                let keyObject = try reader.reference(at: header.payload, position: position, objectIndex: index)
                let matches: Bool
                if let known = compared[keyObject] {
                    matches = known
                } else {
                    if !bytes.isResident { _ = try loadedHeader(ofObject: keyObject, reader) }
                    matches = try wanted.matches(keyObject: keyObject, in: reader, dictionary: index)
                    compared[keyObject] = matches
                }
                if matches { found = position }
            }
            guard let found else { return nil }
            return try reader.reference(at: header.payload, position: header.count + found, objectIndex: index)
        }
    }

    /// The object `keyPath` leads to from the root: a component indexes an array when
    /// it is a number and looks up a key in a dictionary otherwise. `nil` when some
    /// step finds nothing, as `plutil -extract` reports "no value at that key path".
    /// - Throws: ``PropertyListError`` for a malformed object on the way.
    public func objectIndex(at keyPath: PropertyListKeyPath) throws(PropertyListError) -> Int? {
        var current = trailer.topObject
        for component in keyPath.components {
            guard !component.isEmpty else { return nil }
            let header = try header(ofObject: current)
            switch header.kind {
            case .dictionary:
                guard let next = try objectIndex(forKey: component, inDictionary: current) else { return nil }
                current = next
            case .array:
                guard let position = Int(component), position >= 0, position < header.count else { return nil }
                let size = trailer.referenceSize
                try bytes.load(header.payload + position * size..<header.payload + (position + 1) * size)
                current = try withReader { (reader) throws(PropertyListError) in
                    try reader
                        .reference(at: header.payload, position: position, objectIndex: current)
                }
            default:
                return nil
            }
        }
        return current
    }

    /// The whole value `keyPath` leads to, built within the limits the document was opened with; `nil` when the path
    /// names no value.
    /// - Throws: ``PropertyListError`` for a malformed object on the way or inside.
    public func value(at keyPath: PropertyListKeyPath) throws(PropertyListError) -> PropertyListValue? {
        guard let index = try objectIndex(at: keyPath) else { return nil }
        return try value(at: index)
    }

    private func header(ofObject index: Int) throws(PropertyListError) -> BinaryObjectReader.Header {
        try withReader { (reader) throws(PropertyListError) in
            try loadedHeader(ofObject: index, reader, withPayload: false)
        }
    }

    /// Reads the references that start at `payload` into the document and checks that
    /// each names an object.
    private func checkReferences(at payload: Int, count: Int, objectIndex: Int) throws(PropertyListError) {
        try bytes.load(payload..<payload + count * trailer.referenceSize)
        try withReader { (reader) throws(PropertyListError) in
            for position in 0..<count {
                _ = try reader.reference(at: payload, position: position, objectIndex: objectIndex)
            }
        }
    }

}

/// A key being looked up. An ASCII key can only equal an ASCII key with the same bytes,
/// so those are compared in place; any other comparison goes through `String`, whose
/// equality is canonical (a Kelvin sign equals `K`), as the full read's dictionaries are.
private struct WantedKey {
    let text: String
    let asciiBytes: [UInt8]?

    init(_ text: String) {
        self.text = text
        asciiBytes = text.utf8.allSatisfy { $0 < 0x80 } ? Array(text.utf8) : nil
    }

    func matches(keyObject index: Int, in reader: BinaryObjectReader, dictionary: Int) throws(PropertyListError)
        -> Bool
    {
        let offset = try reader.offset(ofObject: index)
        if let stored = reader.asciiStringPayload(at: offset) {
            let storedBytes = UnsafeRawBufferPointer(rebasing: reader.bytes[stored])
            guard let asciiBytes else {
                return try reader.asciiString(stored, at: offset, objectIndex: index) == text
            }
            guard ASCIIBytes.areASCII(storedBytes) else {
                throw PropertyListError(
                    .invalidString, "non-ASCII byte in an ASCII string", offset: offset, objectIndex: index)
            }
            return storedBytes.elementsEqual(asciiBytes)
        }
        let header = try reader.header(at: offset, objectIndex: index)
        guard header.kind == .asciiString || header.kind == .utf16String else {
            throw PropertyListError(
                .invalidObject, "dictionary key (object \(index)) is not a string", objectIndex: dictionary)
        }
        return try reader.string(header, objectIndex: index) == text
    }
}
