/// The one error every property-list reader and writer throws.
///
/// Carries a ``Code`` to match on and whatever context the format has: the byte
/// offset and object number in a binary plist, the line and column in a text one, the
/// key path of a value a writer could not represent.
///
/// ```swift
/// do {
///     _ = try PropertyListReader().read(bytes)
/// } catch .truncated {
///     print("the file was cut short")
/// }
/// ```
public struct PropertyListError: KeepsakeError, Hashable {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<PropertyListError>

    public var code: Code
    /// A human-readable account of what was found.
    public var message: String
    /// Byte offset into the input, where known.
    public var offset: Int?
    /// Object number in a binary plist's offset table, where known.
    public var objectIndex: Int?
    /// One-based line and column in a text format, where known.
    public var line: Int?
    public var column: Int?
    /// Path of the offending value (`items[3].name`), where known.
    public var keyPath: String?

    public init(
        _ code: Code, _ message: String, offset: Int? = nil, objectIndex: Int? = nil,
        line: Int? = nil, column: Int? = nil, keyPath: String? = nil
    ) {
        self.code = code
        self.message = message
        self.offset = offset
        self.objectIndex = objectIndex
        self.line = line
        self.column = column
        self.keyPath = keyPath
    }

    public var context: [String] {
        var context: [String] = []
        if let line { context.append("line \(line)" + (column.map { ", column \($0)" } ?? "")) }
        if let offset { context.append("offset \(offset)") }
        if let objectIndex { context.append("object \(objectIndex)") }
        if let keyPath { context.append("at \(keyPath)") }
        return context
    }
}

extension ErrorCode<PropertyListError> {
    /// Lets `catch .truncated` match a thrown ``PropertyListError`` by its code.
    public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// The bytes are none of the formats this layer reads.
    public static let unknownFormat = Self("unknownFormat")
    /// The input ends before the structure it announces.
    public static let truncated = Self("truncated")
    /// The bytes could not be read from where they are kept (a file read piece by
    /// piece that failed or shrank).
    public static let readFailed = Self("readFailed")
    /// A binary plist's magic or version is wrong.
    public static let invalidHeader = Self("invalidHeader")
    /// A binary plist's trailer describes an impossible layout.
    public static let invalidTrailer = Self("invalidTrailer")
    /// An offset in a binary plist's offset table points outside the object area.
    public static let offsetOutOfRange = Self("offsetOutOfRange")
    /// An object reference names an object that does not exist.
    public static let referenceOutOfRange = Self("referenceOutOfRange")
    /// A container contains itself, directly or through others.
    public static let cyclicReference = Self("cyclicReference")
    /// An object is malformed: unknown marker, bad length, non-string key, bad value.
    public static let invalidObject = Self("invalidObject")
    /// Text that is not valid in its declared encoding.
    public static let invalidString = Self("invalidString")
    /// A text format (XML, OpenStep, JSON) breaks its grammar.
    public static let syntaxError = Self("syntaxError")
    /// Depth, object count or byte count passed a ``PropertyListLimits`` bound.
    public static let limitExceeded = Self("limitExceeded")
    /// A writer was given a value its format cannot represent.
    public static let unsupportedValue = Self("unsupportedValue")
    /// A key path names no value: a missing key, an index past an array's end, or a
    /// step into a value that is not a container.
    public static let keyPathNotFound = Self("keyPathNotFound")
    /// An edit at a key path cannot be made: the value exists already, or `append`
    /// meets something other than an array.
    public static let invalidEdit = Self("invalidEdit")
}
