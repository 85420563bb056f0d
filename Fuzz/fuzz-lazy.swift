// The fuzz target for the lazy binary document; built by scripts/fuzz.sh together
// with the PropertyList sources as one module.
//
// An input is a key path and a document: its first byte is the key path's length, the
// key path follows, the document is the rest. The document is asked for that key path
// and for paths down its first and last children. Asking never crashes, hangs or runs
// away; when the full reader accepts the document, every answer must be the value the
// full tree holds at that path. The same document read piece by piece, as a file is,
// must give the same answers and fail with the same codes.

func checkFuzzInput(_ bytes: [UInt8]) {
    LazyDocumentFuzzCheck.check(bytes)
}

enum LazyDocumentFuzzCheck {
    static func check(_ input: [UInt8]) {
        guard let length = input.first.map(Int.init), input.count > length else { return }
        let asked = PropertyListKeyPath(String(decoding: input[1..<(1 + length)], as: UTF8.self))
        let bytes = Array(input[(length + 1)...])
        let tree = try? PropertyListReader(limits: FuzzCheck.limits).read(bytes, as: .binary)
        guard let plist = try? BinaryPropertyList(bytes: bytes, limits: FuzzCheck.limits) else {
            if tree != nil { fatalError("the full reader accepts a document the lazy one cannot open") }
            return
        }
        // Read a byte at a time, so that every byte an answer uses must have been read.
        guard
            let paged = try? BinaryPropertyList(
                reading: SourceOfBytes(bytes: bytes), limits: FuzzCheck.limits, pageSize: 1)
        else {
            fatalError("read piece by piece, a document that opens in memory does not open")
        }
        for path in [asked] + descents(plist) {
            let lazy = Result { try plist.value(at: path) }
            if !sameOutcome(lazy, Result { try paged.value(at: path) }) {
                fatalError("read piece by piece, the document answers \(path) otherwise")
            }
            if let index = try? plist.objectIndex(at: path) {
                _ = try? plist.kind(ofObject: index)
                _ = try? plist.elements(ofArray: index)
                _ = try? plist.entries(ofDictionary: index)
            }
            guard let tree else { continue }
            guard case .success(let value) = lazy else {
                fatalError("lazy lookup of \(path) failed on a valid document")
            }
            if value != tree.value(at: path) { fatalError("lazy lookup of \(path) differs from the full tree") }
        }
    }

    /// Paths that always take the first child, and always the last, as deep as they go
    /// (at most 16 steps), found through the lazy calls alone.
    static func descents(_ plist: BinaryPropertyList) -> [PropertyListKeyPath] {
        var paths: [PropertyListKeyPath] = []
        for takeLast in [false, true] {
            var components: [String] = []
            var current = plist.topObjectIndex
            while components.count < 16 {
                if let elements = try? plist.elements(ofArray: current), !elements.isEmpty {
                    let position = takeLast ? elements.count - 1 : 0
                    components.append(String(position))
                    current = elements[position]
                } else if let entries = try? plist.entries(ofDictionary: current), !entries.keys.isEmpty,
                    case .string(let key)? = try? plist.value(at: entries.keys[takeLast ? entries.keys.count - 1 : 0])
                {
                    components.append(key)
                    current = entries.values[takeLast ? entries.values.count - 1 : 0]
                } else {
                    break
                }
                paths.append(PropertyListKeyPath(components: components))
            }
        }
        return paths
    }
}

extension LazyDocumentFuzzCheck {
    /// Whether two answers are the same value, or errors of the same code.
    static func sameOutcome(
        _ one: Result<PropertyListValue?, any Error>, _ other: Result<PropertyListValue?, any Error>
    )
        -> Bool
    {
        switch (one, other) {
        case (.success(let a), .success(let b)): a == b
        case (.failure(let a), .failure(let b)): (a as? PropertyListError)?.code == (b as? PropertyListError)?.code
        default: false
        }
    }
}

/// Bytes in memory given piece by piece, as a file read with `pread` gives them.
struct SourceOfBytes: RandomAccessBytes {
    let bytes: [UInt8]
    var count: Int { bytes.count }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        bytes.withUnsafeBytes {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + buffer.count]))
        }
    }
}
