/// The one error the keyed archiver and unarchiver throw.
///
/// Carries a ``Code`` to match on and whatever context is known: the key path of the
/// value being decoded (`root[3].dateCreated`), the UID of the `$objects` entry, the
/// archived class name, and the error underneath (a `PropertyListError` for unreadable
/// bytes, or the error a type's `init(coder:)` threw).
///
/// Corresponds to the `NSCoderReadCorruptError` / `NSCoderValueNotFoundError` errors
/// Foundation reports, and to the exceptions it raises where it has no error to report.
///
/// ```swift
/// do {
///     let items = try KeyedUnarchiver.unarchivedArrayOfObjects(ofClass: Item.self, from: data)
/// } catch .unknownClass {
///     print("the archive names a class we do not know")
/// } catch {
///     print(error)   // typeMismatch: expected String, found NSDate (at root[3].name; UID 17)
/// }
/// ```
public struct KeyedArchiveError: KeepsakeError {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<KeyedArchiveError>

    public var code: Code
    /// A human-readable account of what was found.
    public var message: String
    /// Path of the value being decoded when the error happened (`root[3].name`).
    public var keyPath: String?
    /// The `$objects` index involved, where known.
    public var uid: Int?
    /// The archived class name involved, where known.
    public var className: String?
    /// The error underneath: a `PropertyListError` or a type's own error.
    public var underlyingError: (any Error)?

    public init(
        _ code: Code, _ message: String, keyPath: String? = nil, uid: Int? = nil,
        className: String? = nil, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.keyPath = keyPath
        self.uid = uid
        self.className = className
        self.underlyingError = underlyingError
    }

    public var context: [String] {
        var context: [String] = []
        if let keyPath { context.append("at \(keyPath)") }
        if let uid { context.append("UID \(uid)") }
        if let className { context.append("class \(className)") }
        return context
    }
}

extension ErrorCode<KeyedArchiveError> {
    /// Lets `catch .unknownClass` match a thrown ``KeyedArchiveError`` by its code.
    public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// The bytes are not a property list, or one that cannot be read.
    public static let invalidPropertyList = Self("invalidPropertyList")
    /// The property list is not a keyed archive (`$archiver` missing or another archiver).
    public static let unsupportedArchiver = Self("unsupportedArchiver")
    /// `$version` is not 100000.
    public static let unsupportedVersion = Self("unsupportedVersion")
    /// `$top` is missing or not a dictionary.
    public static let missingTop = Self("missingTop")
    /// `$objects` is missing, empty or not an array.
    public static let missingObjects = Self("missingObjects")
    /// A UID points outside `$objects`.
    public static let uidOutOfRange = Self("uidOutOfRange")
    /// An object's `$class` does not lead to a valid `{$classname, $classes}` entry.
    public static let invalidClassTable = Self("invalidClassTable")
    /// No type is known for an archived class name.
    public static let unknownClass = Self("unknownClass")
    /// Secure decoding refuses the class: it is not among the allowed classes (nor a
    /// subclass of one), or its type does not adopt ``KeyedSecureCoding``.
    public static let classNotAllowed = Self("classNotAllowed")
    /// A call that only works with secure decoding was made with it off
    /// (`decodeArrayOfObjects(ofClass:forKey:)`, where Foundation raises an exception).
    public static let secureCodingRequired = Self("secureCodingRequired")
    /// A value is not of the type it was decoded as.
    public static let typeMismatch = Self("typeMismatch")
    /// A required key is absent (or holds `nil`), or the archive's root is.
    public static let keyNotFound = Self("keyNotFound")
    /// An entry is malformed: a dictionary without `$class`, an `NSArray` without
    /// `NS.objects`, a UUID of the wrong length, a `nil` element.
    public static let invalidObject = Self("invalidObject")
    /// An object contains itself where its type cannot hold a back reference.
    public static let cycle = Self("cycle")
    /// Depth, object count or byte count passed a `PropertyListLimits` bound.
    public static let limitExceeded = Self("limitExceeded")
    /// A type's `init(coder:)` threw an error of its own (see `underlyingError`).
    public static let decodingFailed = Self("decodingFailed")
    /// The archiver was given a value it cannot store, or asked for a format other
    /// than binary or XML.
    public static let unsupportedValue = Self("unsupportedValue")
}

extension KeyedArchiveError {
    /// The code of the `NSError` Foundation reports for this failure:
    /// `NSCoderValueNotFoundError` (4865) when a value is missing, else
    /// `NSCoderReadCorruptError` (4864).
    public var foundationErrorCode: Int { code == .keyNotFound ? 4865 : 4864 }

    /// The error seen from one level up: `component` is prepended to the key path, so a
    /// path is built only when an error actually travels up, never on success.
    func prefixed(by component: String) -> KeyedArchiveError {
        var error = self
        error.keyPath = PropertyListKeyPath.text(component, before: keyPath)
        return error
    }

    /// Wraps a property-list error met while reading the archive's structure.
    static func propertyList(_ error: PropertyListError, uid: Int? = nil) -> KeyedArchiveError {
        let code: Code = error.code == .limitExceeded ? .limitExceeded : .invalidPropertyList
        return KeyedArchiveError(code, "the archive's property list cannot be read", uid: uid, underlyingError: error)
    }
}
