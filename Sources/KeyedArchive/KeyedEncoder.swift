public import Foundation

/// The coder a ``KeyedCoding`` type writes its properties to, and the archiver that
/// turns the object graph into a keyed archive.
///
/// Corresponds to `NSKeyedArchiver` in its role as the `NSCoder` handed to
/// `encode(with:)`. Every distinct object gets one UID in `$objects`: class instances
/// by identity (so shared references stay shared and cycles are fine), values by
/// equality (equal numbers, data, UUIDs, URLs and strings of up to 15 UTF-8 bytes are
/// stored once, as Foundation on Linux does; a longer string is stored once per
/// `String` storage and each encoded date is its own `NSDate`, as on Darwin, where the
/// archiver merges objects by identity).
/// Numbers and booleans encoded directly are stored inline in the object's dictionary;
/// `nil` is a reference to `$null`.
///
/// ```swift
/// let encoder = KeyedEncoder()
/// encoder.encode(items, forKey: "root")
/// let data = try encoder.encodedData
/// ```
///
/// Most code uses ``KeyedArchiver/archivedData(withRootObject:format:)-(Root,_)`` instead.
/// Encoding methods never throw (as in Foundation); a value that cannot be archived, or
/// a graph nested deeper than ``maxDepth``, is recorded in ``error`` and thrown by
/// ``encodedData``.
public final class KeyedEncoder {
    /// Binary (the default, like Foundation) or XML.
    public var outputFormat: PropertyListFormat
    /// How deeply objects may nest. Encoding recurses, so this keeps a runaway graph
    /// from exhausting the stack; the default matches what the unarchiver accepts.
    public var maxDepth: Int
    /// The first failure met while encoding; ``encodedData`` throws it.
    public private(set) var error: KeyedArchiveError?

    // The encoding state. Every access to it is short and none is held across a call
    // (user code re-enters the encoder only between accesses), so the dynamic
    // exclusivity checks, which cost as much as the encoding itself, are turned off.
    // Debug builds define KEEPSAKE_EXCLUSIVITY_CHECKS (Package.swift) and keep them, so
    // the tests would trap on an overlapping access.
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var entries: [ArchiveEntry] = [.string("$null")]
    /// Fields of finished instances, each instance a contiguous range.
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var fields: [ArchiveField] = []
    /// Fields of the instances being encoded, innermost last; `$top`'s from index 0.
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var fieldStack: [ArchiveField] = []
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var frameStart = 0
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var uidPool: [Int] = []
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var depth = 0

    #if !KEEPSAKE_EXCLUSIVITY_CHECKS

    @exclusivity(unchecked)

    #endif

    var identities: [ObjectIdentifier: Int] = [:]
    /// Keeps encoded objects alive so no identity is reused while encoding.
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var retained: [AnyObject] = []
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var typeInfo: [ObjectIdentifier: EncodedTypeInfo] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var lastTypeInfo: (key: ObjectIdentifier, info: EncodedTypeInfo)?
    var classNameOverrides: [ObjectIdentifier: String] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var classUIDs: [String: Int] = [:]

    // Equal values are stored once, as Foundation does (dates excepted: they are rarely
    // repeated, and Darwin's archiver does not merge them either).
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var stringUIDs: [ExactString: Int] = [:]
    /// Long strings by the address of their storage.
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var longStringUIDs: [UInt: Int] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var dataUIDs: [Data: Int] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var integerUIDs: [Int64: Int] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var unsignedUIDs: [UInt64: Int] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var realUIDs: [UInt64: Int] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var floatUIDs: [UInt32: Int] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var boolUIDs: [Bool: Int] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var uuidUIDs: [UUID: Int] = [:]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var urlUIDs: [URL: Int] = [:]
    /// The class entries of Foundation's classes, by kind, once made.
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var foundationClassUIDs = [Int?](repeating: nil, count: FoundationClass.allCases.count)

    private var finished: ArchiveContent?

    public init(outputFormat: PropertyListFormat = .binary, maxDepth: Int = PropertyListLimits.default.maxDepth) {
        self.outputFormat = outputFormat
        self.maxDepth = maxDepth
    }

    // MARK: Class names

    /// Writes `name` instead of `type`'s ``KeyedCoding/archiveClassName`` (also where
    /// the type appears in a subclass's `$classes`); `nil` removes the mapping.
    /// Corresponds to `NSKeyedArchiver.setClassName(_:for:)`.
    public func setClassName(_ name: String?, for type: any KeyedCoding.Type) {
        classNameOverrides[ObjectIdentifier(type)] = name
        typeInfo.removeAll()
        lastTypeInfo = nil
    }

    /// The name set with ``setClassName(_:for:)``, if any.
    public func className(for type: any KeyedCoding.Type) -> String? {
        classNameOverrides[ObjectIdentifier(type)]
    }

    // MARK: Encoding values

    public func encode(_ value: String, forKey key: String) {
        appendField(key, .uid(encodeString(value)))
    }

    public func encode(_ value: String?, forKey key: String) {
        let uid = if let value { encodeString(value) } else { 0 }
        appendField(key, .uid(uid))
    }

    public func encode(_ value: Int, forKey key: String) {
        appendField(key, .integer(Int64(value)))
    }

    public func encode(_ value: Int8, forKey key: String) { appendField(key, .integer(Int64(value))) }
    public func encode(_ value: Int16, forKey key: String) { appendField(key, .integer(Int64(value))) }
    public func encode(_ value: Int32, forKey key: String) { appendField(key, .integer(Int64(value))) }
    public func encode(_ value: Int64, forKey key: String) { appendField(key, .integer(value)) }
    public func encode(_ value: UInt8, forKey key: String) { appendField(key, .integer(Int64(value))) }
    public func encode(_ value: UInt16, forKey key: String) { appendField(key, .integer(Int64(value))) }
    public func encode(_ value: UInt32, forKey key: String) { appendField(key, .integer(Int64(value))) }
    public func encode(_ value: UInt, forKey key: String) { encode(UInt64(value), forKey: key) }

    public func encode(_ value: UInt64, forKey key: String) {
        appendField(key, value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsignedInteger(value))
    }

    public func encode(_ value: Double, forKey key: String) {
        appendField(key, .real(value))
    }

    /// Stored as a 32-bit real, as Foundation stores a `Float` `NSNumber`.
    public func encode(_ value: Float, forKey key: String) {
        appendField(key, .float(value))
    }

    public func encode(_ value: Bool, forKey key: String) {
        appendField(key, .bool(value))
    }

    /// An `NSDate` object with `NS.time`.
    public func encode(_ value: Date, forKey key: String) {
        appendField(key, .uid(encodeDate(value)))
    }

    public func encode(_ value: Date?, forKey key: String) {
        let uid = if let value { encodeDate(value) } else { 0 }
        appendField(key, .uid(uid))
    }

    /// Data stored inline in `$objects`, as Foundation stores `NSData`.
    public func encode(_ value: Data, forKey key: String) {
        appendField(key, .uid(encodeData(value)))
    }

    public func encode(_ value: Data?, forKey key: String) {
        let uid = if let value { encodeData(value) } else { 0 }
        appendField(key, .uid(uid))
    }

    /// Any archivable value: a ``KeyedCoding`` object, an array, dictionary or set,
    /// a `URL`, a `UUID`, a `PropertyListValue`…
    public func encode<Value: KeyedArchivable>(_ value: Value, forKey key: String) {
        value._encodeField(to: self, forKey: key)
    }

    /// `nil` is stored as a reference to `$null`, as Foundation does; the key is present.
    public func encode<Value: KeyedArchivable>(_ value: Value?, forKey key: String) {
        guard let value else { return appendField(key, .uid(0)) }
        appendField(key, .uid(Int(value._encodeObject(to: self).value)))
    }

    /// A value whose type is known only at run time, as `NSCoder.encode(_:forKey:)`
    /// takes `Any?`: anything ``KeyedArchivable``, `[Any]`, `[AnyHashable: Any]`,
    /// `Set<AnyHashable>`. Anything else is recorded as an `.unsupportedValue` error.
    public func encode(_ object: Any?, forKey key: String) {
        encodeAnyField(object, forKey: key)
    }

    /// Stores a reference to `object` only if the archive also contains it through an
    /// unconditional encode (before or after this call); otherwise `nil`. Used for back
    /// pointers (a child's parent) that must not drag an object into the archive.
    /// Corresponds to `encodeConditionalObject(_:forKey:)`.
    public func encodeConditionalObject<Object: KeyedCoding & AnyObject>(_ object: Object?, forKey key: String) {
        guard let object else { return appendField(key, .uid(0)) }
        appendField(key, .conditional(ObjectIdentifier(object)))
    }

    /// Any `Encodable` value, stored as Foundation property-list objects (`NSDictionary`,
    /// `NSArray`, `NSString`, `NSNumber`, `NSDate`, `NSData`) the way Foundation's
    /// `encodeEncodable(_:forKey:)` stores them; `nil` is the string `"$null"`, as in
    /// `PropertyListEncoder`'s output.
    /// - Throws: ``KeyedArchiveError`` with `.unsupportedValue` when the value's
    ///   `encode(to:)` fails.
    public func encodeEncodable<Value: Encodable>(_ value: Value, forKey key: String) throws(KeyedArchiveError) {
        encode(try PropertyListValueEncoder.encode(value), forKey: key)
    }

    /// Records a failure that ``encodedData`` will throw. Corresponds to
    /// `NSCoder.failWithError(_:)`. The first error wins.
    public func failWithError(_ error: KeyedArchiveError) {
        if self.error == nil { self.error = error }
    }

    // MARK: Output

    /// The finished archive in ``outputFormat``. Reading it finishes encoding; encoding
    /// more afterwards is a programmer error and traps.
    /// Corresponds to `finishEncoding()` followed by `encodedData`.
    /// - Throws: ``KeyedArchiveError``: the recorded ``error``, or `.unsupportedValue`
    ///   for a format other than binary or XML.
    public var encodedData: Data {
        get throws(KeyedArchiveError) { Data(try encodedBytes) }
    }

    /// ``encodedData`` as bytes.
    public var encodedBytes: [UInt8] {
        get throws(KeyedArchiveError) {
            let content = try finish()
            switch outputFormat {
            case .binary:
                return ArchiveBinaryWriter(content: content).write()
            case .xml:
                do {
                    return try PropertyListWriter.xml.write(ArchiveTreeBuilder(content: content).tree())
                } catch {
                    throw KeyedArchiveError(.unsupportedValue, "cannot write XML", underlyingError: error)
                }
            case .openStep, .json:
                throw KeyedArchiveError(.unsupportedValue, "keyed archives are binary or XML, not \(outputFormat)")
            }
        }
    }

    /// The finished archive as a property-list tree (`$archiver`, `$objects`, `$top`,
    /// `$version`), for inspection or for writing in another format.
    /// - Throws: ``KeyedArchiveError``: the recorded ``error``.
    public var encodedPropertyList: PropertyListValue {
        get throws(KeyedArchiveError) { ArchiveTreeBuilder(content: try finish()).tree() }
    }

    private func finish() throws(KeyedArchiveError) -> ArchiveContent {
        if let error { throw error }
        if let finished { return finished }
        let content = ArchiveContent(
            entries: entries, fields: fields, topFields: fieldStack, uidPool: uidPool, identities: identities)
        finished = content
        return content
    }

    // MARK: Plumbing shared with the conformances

    /// Appends one field to the object being encoded.
    func appendField(_ key: String, _ value: ArchiveFieldValue) {
        precondition(finished == nil, "KeyedEncoder: encoding after encodedData was read")
        fieldStack.append(ArchiveField(key: key, value: value))
    }
}
