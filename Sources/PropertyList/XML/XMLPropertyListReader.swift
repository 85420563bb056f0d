#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Apple's XML property lists: the `<plist>` documents `PropertyListSerialization`
/// and `plutil -convert xml1` write.
///
/// Corresponds to the XML half of `PropertyListSerialization.propertyList(from:options:format:)`.
/// A hand-written byte-level parser: it never builds a DOM and never recurses, so nesting
/// costs heap, not stack, and is bounded by ``PropertyListLimits/maxDepth``. Plain text
/// is turned into a `String` straight from the input bytes.
///
/// Policies, where readers differ:
/// - The input must be UTF-8 (a byte-order mark is skipped); anything else is
///   `.invalidString`.
/// - A bare value without the `<plist>` wrapper is accepted, as Core Foundation accepts it.
///   After the root only white space, comments and processing instructions may follow
///   (Core Foundation ignores any trailing bytes; we do not).
/// - Only the five predefined entities and character references are expanded; any other
///   entity, even one declared in the DOCTYPE, is a `.syntaxError`.
/// - Comments inside `<string>` and `<key>` are skipped, as XML requires (Core Foundation
///   rejects them).
/// - A dictionary whose only key is `CF$UID` with a non-negative integer value reads as
///   ``PropertyListValue/uid(_:)``, as Core Foundation reads keyed archives (`plistlib`
///   keeps it a dictionary).
/// - A repeated key keeps its first position and its last value.
/// - `<data>` is strict base64: white space is skipped, any other byte outside the
///   alphabet is `.invalidObject` (Core Foundation skips such bytes silently).
/// - Raw control characters in text are kept, as Core Foundation keeps them.
///
/// ```swift
/// let value = try bytes.withUnsafeBufferPointer { try XMLPropertyListReader.read($0, limits: .default) }
/// ```
struct XMLPropertyListReader {
    /// - Throws: ``PropertyListError`` with a line and column: `.syntaxError` for broken
    ///   XML, `.invalidObject` for a well-formed document that is no property list (unknown
    ///   tag, value without key, bad number, date or base64), `.truncated` when the input
    ///   ends early, `.invalidString` for bad UTF-8, `.limitExceeded` past `limits`.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, limits: PropertyListLimits) throws(PropertyListError)
        -> PropertyListValue
    {
        if let offset = UTF8Validation.firstInvalidOffset(in: bytes) {
            throw TextPosition.error(.invalidString, "the input is not valid UTF-8", at: offset, in: bytes)
        }
        var reader = XMLPropertyListReader(scanner: XMLScanner(bytes: bytes), limits: limits)
        return try reader.readDocument()
    }

    private enum Kind {
        /// Above the root: receives the one top-level value.
        case document
        case plist
        case array
        case dictionary
    }

    /// A container being filled; the innermost one is kept out of the stack so that
    /// appending to it never copies.
    private struct Frame {
        var kind: Kind
        var element: XMLElementName
        /// Offset of the open tag, for messages.
        var start: Int
        var items: [PropertyListValue] = []
        var dictionary = PropertyListDictionary()
        /// The key read for the value to come.
        var key: String?
        var value: PropertyListValue?
    }

    private var scanner: XMLScanner
    private let limits: PropertyListLimits
    private var objectCount = 0
    private var byteCount = 0
    private var depth = 0

    private init(scanner: XMLScanner, limits: PropertyListLimits) {
        self.scanner = scanner
        self.limits = limits
    }

    private mutating func readDocument() throws(PropertyListError) -> PropertyListValue {
        try scanner.skipProlog()
        var current = Frame(kind: .document, element: .unknown, start: scanner.position)
        var stack: [Frame] = []
        while true {
            if current.kind == .document, let root = current.value {
                guard try !scanner.skipToTag() else {
                    throw scanner.error(.syntaxError, "content after the root element", at: scanner.position)
                }
                return root
            }
            guard try scanner.skipToTag() else {
                guard current.kind != .document else {
                    throw scanner.error(.truncated, "no property-list element found", at: scanner.position)
                }
                throw scanner.error(.truncated, "input ends before </\(current.element.name)>", at: current.start)
            }
            let tag = try scanner.readTag()
            if tag.isClose {
                let value = try close(current, with: tag)
                current = stack.removeLast()
                try add(value, to: &current, at: tag.start)
                continue
            }
            if current.kind == .dictionary, current.key == nil {
                current.key = try readKey(tag)
                continue
            }
            if current.kind == .plist, current.value != nil {
                throw scanner.error(.invalidObject, "more than one value in <plist>", at: tag.start)
            }
            switch tag.element {
            case .plist:
                guard current.kind == .document, !tag.isSelfClosing else {
                    throw scanner.error(
                        .invalidObject, tag.isSelfClosing ? "empty <plist>" : "<plist> inside a value", at: tag.start)
                }
                stack.append(current)
                current = Frame(kind: .plist, element: .plist, start: tag.start)
            case .array, .dict:
                try count(bytes: 0, at: tag.start)
                if tag.isSelfClosing {
                    let empty: PropertyListValue = tag.element == .array ? .array([]) : .dictionary([:])
                    try add(empty, to: &current, at: tag.start)
                } else {
                    guard depth < limits.maxDepth else {
                        throw scanner.error(
                            .limitExceeded, "containers nest deeper than \(limits.maxDepth)", at: tag.start)
                    }
                    depth += 1
                    stack.append(current)
                    current = Frame(
                        kind: tag.element == .array ? .array : .dictionary, element: tag.element, start: tag.start)
                }
            case .key:
                throw scanner.error(
                    .invalidObject, current.kind == .dictionary ? "two keys in a row" : "<key> outside a dictionary",
                    at: tag.start)
            default:
                let value = try readScalar(tag)
                try add(value, to: &current, at: tag.start)
            }
        }
    }

    /// The finished value of `frame`, checking that `tag` closes it.
    private mutating func close(_ frame: Frame, with tag: XMLScanner.Tag) throws(PropertyListError) -> PropertyListValue
    {
        guard tag.element == frame.element, frame.kind != .document else {
            let expected = frame.kind == .document ? "" : " (expected </\(frame.element.name)>)"
            throw scanner.error(.syntaxError, "unexpected </\(tag.element.name)>\(expected)", at: tag.start)
        }
        switch frame.kind {
        case .plist:
            guard let value = frame.value else { throw scanner.error(.invalidObject, "empty <plist>", at: frame.start) }
            return value
        case .array:
            depth -= 1
            return .array(frame.items)
        default:
            depth -= 1
            if frame.key != nil { throw scanner.error(.invalidObject, "a key without a value", at: tag.start) }
            return Self.dictionaryOrUID(frame.dictionary)
        }
    }

    /// Keyed archives spell a UID as a one-key dictionary `{CF$UID: n}`; Core Foundation
    /// reads it back as a UID and so do we.
    private static func dictionaryOrUID(_ dictionary: PropertyListDictionary) -> PropertyListValue {
        if dictionary.count == 1, dictionary[0].key == PropertyListUID.dictionaryKey,
            let number = dictionary[0].value.uint64Value
        {
            return .uid(PropertyListUID(number))
        }
        return .dictionary(dictionary)
    }

    private func add(_ value: PropertyListValue, to frame: inout Frame, at offset: Int) throws(PropertyListError) {
        switch frame.kind {
        case .array:
            frame.items.append(value)
        case .dictionary:
            if let key = frame.key {
                frame.dictionary.updateValue(value, forKey: key)
                frame.key = nil
            }
        case .plist, .document:
            guard frame.value == nil else {
                throw scanner.error(.invalidObject, "more than one value in <plist>", at: offset)
            }
            frame.value = value
        }
    }

    private mutating func readKey(_ tag: XMLScanner.Tag) throws(PropertyListError) -> String {
        guard tag.element == .key else {
            throw scanner.error(.invalidObject, "<\(tag.element.name)> where a dictionary expects <key>", at: tag.start)
        }
        return try readString(tag)
    }

    private mutating func readString(_ tag: XMLScanner.Tag) throws(PropertyListError) -> String {
        if tag.isSelfClosing { return "" }
        let text = try scanner.readContent(of: tag.element, tagStart: tag.start)
        switch text {
        case .span(let range):
            try count(bytes: range.count, at: tag.start, isValue: tag.element != .key)
            return String(decoding: UnsafeBufferPointer(rebasing: scanner.bytes[range]), as: UTF8.self)
        case .decoded(let bytes):
            try count(bytes: bytes.count, at: tag.start, isValue: tag.element != .key)
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private mutating func readScalar(_ tag: XMLScanner.Tag) throws(PropertyListError) -> PropertyListValue {
        switch tag.element {
        case .string:
            return .string(try readString(tag))
        case .true, .false:
            let isBlank = try withContent(of: tag) { $0.allSatisfy(XMLScanner.isWhitespace) }
            guard isBlank else {
                throw scanner.error(.invalidObject, "<\(tag.element.name)> with content", at: tag.start)
            }
            try count(bytes: 0, at: tag.start)
            return .bool(tag.element == .true)
        case .data:
            let decoded = try withContent(of: tag) { Base64.decode($0) }
            guard let decoded else { throw scanner.error(.invalidObject, "<data> is not base64", at: tag.start) }
            try count(bytes: decoded.count, at: tag.start)
            return .data(Data(decoded))
        case .date:
            let seconds = try withContent(of: tag) {
                ISO8601Date.parse(UnsafeBufferPointer(rebasing: XMLScalar.trimmed($0)))
            }
            guard let seconds else { throw scanner.error(.invalidObject, "malformed <date>", at: tag.start) }
            try count(bytes: 0, at: tag.start)
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .real:
            guard let real = try withContent(of: tag, XMLScalar.real) else {
                throw scanner.error(.invalidObject, "malformed <real>", at: tag.start)
            }
            try count(bytes: 0, at: tag.start)
            return .real(real)
        default:
            switch try withContent(of: tag, XMLScalar.integer) {
            case .success(let value):
                try count(bytes: 0, at: tag.start)
                return value
            case .failure(.outOfRange):
                throw scanner.error(.invalidObject, "<integer> outside the 64-bit range", at: tag.start)
            case .failure(.malformed):
                throw scanner.error(.invalidObject, "malformed <integer>", at: tag.start)
            }
        }
    }

    /// Runs `body` on the text of `tag`'s element (empty for `<name/>`).
    private mutating func withContent<R>(of tag: XMLScanner.Tag, _ body: (UnsafeBufferPointer<UInt8>) -> R)
        throws(PropertyListError) -> R
    {
        if tag.isSelfClosing { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        switch try scanner.readContent(of: tag.element, tagStart: tag.start) {
        case .span(let range): return body(UnsafeBufferPointer(rebasing: scanner.bytes[range]))
        case .decoded(let bytes): return bytes.withUnsafeBufferPointer(body)
        }
    }

    /// Counts one value (unless `isValue` is false, for keys) and `bytes` of strings or
    /// data against the limits.
    private mutating func count(bytes: Int, at offset: Int, isValue: Bool = true) throws(PropertyListError) {
        if isValue {
            objectCount += 1
            guard objectCount <= limits.maxObjectCount else {
                throw scanner.error(.limitExceeded, "more than \(limits.maxObjectCount) values", at: offset)
            }
        }
        byteCount += bytes
        guard byteCount <= limits.maxByteCount else {
            throw scanner.error(
                .limitExceeded, "more than \(limits.maxByteCount) bytes of strings and data", at: offset)
        }
    }
}
