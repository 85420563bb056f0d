public import Foundation

/// The coder a ``KeyedCoding`` type reads its properties from, and the unarchiver that
/// rebuilds the object graph from a keyed archive.
///
/// Corresponds to `NSKeyedUnarchiver` in its role as the `NSCoder` handed to
/// `init(coder:)`. Objects are decoded on demand, by UID, and memoised: two references
/// to one UID give the same class instance. A binary archive is read in place, one
/// `$objects` entry at a time, without materialising the whole property list.
///
/// Two families of calls read a value:
/// - The Swift calls throw a ``KeyedArchiveError`` naming the key path:
///   ``decode(_:forKey:)`` (the key must be present), ``decodeIfPresent(_:forKey:)``.
/// - Foundation's spellings never throw, as in the books: ``decodeObject(forKey:)``,
///   ``decodeInteger(forKey:)``, ``decodeBool(forKey:)``… A failure returns `nil` or
///   `0`, is recorded in ``error``, makes later calls return `nil` too, and is thrown
///   by the unarchiver once the current `init(coder:)` returns (Foundation's
///   `.setErrorAndReturn` policy).
///
/// Secure decoding is on by default (``requiresSecureCoding``), with Apple's rules: each
/// decode allows the classes it names (the type of a typed call, the list of
/// `decodeObject(of:forKey:)` with a list or ``allowClasses(_:)``) and their
/// subclasses, for everything read inside it; ``decodeObject(forKey:)`` inherits them.
/// Inline strings, numbers and data pass unlisted with a warning
/// (``secureCodingWarnings``); arrays, dictionaries, sets and dates must be listed; a type
/// must adopt ``KeyedSecureCoding``. Classes are found through this decoder's mappings,
/// the process's, their archived name, then the ``delegate``; the class found is the one
/// checked. With secure decoding off, every class found is made.
///
/// Cycles: a class instance that is reached again while its `init(coder:)` runs cannot
/// be returned (Swift has no half-initialised objects), so that decode throws `.cycle`;
/// read such back pointers with ``decodeBackReference(_:forKey:assign:)`` instead.
/// Generic objects (``allowsGenericObjects``) may form any cycle.
///
/// ```swift
/// let decoder = try KeyedDecoder(forReadingFrom: data)
/// decoder.setClass(Item.self, forClassName: "Homepwner.Item")
/// let items = try decoder.decode([Item].self, forKey: "root")
/// ```
public final class KeyedDecoder {
    /// Only instantiate allowed types; see the type's discussion. `true` by default.
    /// Corresponds to `requiresSecureCoding`.
    public var requiresSecureCoding = true
    /// Decode objects of classes no type is known for as ``ArchivedObject``s instead of
    /// failing with `.unknownClass` / `.classNotAllowed`: the inspection of an archive
    /// whose classes are not at hand. Foundation's values (which run no code of the
    /// archive's choosing) are then read whatever the allowed classes; a type's
    /// `init(coder:)` still runs only when secure decoding allows it. `false` by default.
    public var allowsGenericObjects = false
    /// Refuse now what secure decoding allows with a warning, which Apple says "will be
    /// disallowed in the future": an inline string, number or data that is not listed,
    /// `NSObject` in a list, and ``decodeObject(forKey:)`` of a value that is not an object.
    /// `false` by default, as in Foundation. See ``secureCodingWarnings``.
    public var refusesWhatAppleWillDisallow = false
    /// What secure decoding allowed that Apple warns about, once per kind, key and class,
    /// in the order met. Each is also logged, once per process, through `os_log`.
    public internal(set) var secureCodingWarnings: [SecureCodingWarning] = []
    /// Bounds on nesting depth, values and bytes for the whole archive.
    public let limits: PropertyListLimits
    /// Asked for a type when no mapping or name finds one. Corresponds to
    /// `NSKeyedUnarchiver.delegate`.
    public weak var delegate: (any KeyedDecoderDelegate)?
    /// The first failure of a non-throwing decode call in the current object.
    /// Corresponds to `NSCoder.error`.
    // Read on every Foundation-style call; never held across a call (see `slots`).
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    public internal(set) var error: KeyedArchiveError?

    let objects: ArchiveObjects
    // The state touched on every field access. Each access is short and never spans a
    // call that could reach the same property, so the dynamic exclusivity checks are
    // turned off for them (they cost as much as the decoding itself). Debug builds define
    // KEEPSAKE_EXCLUSIVITY_CHECKS (Package.swift) and keep them, so the tests would trap
    // on an overlapping access.
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var slots: [DecodeSlot]
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var frame: DecodingFrame
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var savedFrames: [DecodingFrame] = []
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var depth = 0
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var classes: [Int: ArchivedClass] = [:]
    var registry = ClassRegistry()
    /// Bumped when the registry learns a type, so failed lookups are retried.
    var registryGeneration = 0
    /// The allowed-classes set of the decode in progress (see ``AllowedScope``).
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var allowedScope = AllowedScope.listed(AllowedClasses([]))
    /// The sets of typed requests, built once per type.
    var requestedClasses: [ObjectIdentifier: AllowedClasses] = [:]
    /// The key whose value is being checked, for the warnings (`NS.objects` in collections).
    var checkedKey = ""
    /// Whether a collection call runs, and has met its collection.
    var collectionCall = CollectionCall.none
    /// The warnings given so far (``secureCodingWarnings`` holds them in full).
    var warnedAbout: Set<WarnedAbout> = []
    /// Secure decoding without the model types (``ArchiveClassUsage/simulate(_:allowing:limits:)``):
    /// every class is checked by archived name and read as a generic object.
    var simulatesSecureDecoding = false
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var lastAllowedType: ObjectIdentifier?
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var lastClassLookup: (uid: Int, archivedClass: ArchivedClass)?
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var pendingGenericObjects: [(object: ArchivedObject, fields: InstanceFields, uid: Int)] = []
    /// Generic objects made so far, which numbers them in decoding order.
    var genericObjectCount = 0
    #if !KEEPSAKE_EXCLUSIVITY_CHECKS
    @exclusivity(unchecked)
    #endif
    var backReferences: [Int: [(Any) -> Void]] = [:]

    /// Opens an archive in any property-list format (binary, XML…).
    /// Corresponds to `NSKeyedUnarchiver(forReadingFrom:)`.
    /// - Throws: ``KeyedArchiveError`` when the bytes are not a keyed archive.
    public convenience init(forReadingFrom data: Data, limits: PropertyListLimits = .default) throws(KeyedArchiveError)
    {
        try self.init(opened: ArchiveObjects.open(data, limits: limits), limits: limits)
    }

    /// - Throws: ``KeyedArchiveError`` when the bytes are not a keyed archive.
    public convenience init(bytes: [UInt8], limits: PropertyListLimits = .default) throws(KeyedArchiveError) {
        try self.init(opened: ArchiveObjects.open(bytes, limits: limits), limits: limits)
    }

    /// Opens the binary archive `source` holds (a file, say), read whole at once into the
    /// memory it is decoded from, without the copies of reading it to bytes first.
    /// - Throws: ``KeyedArchiveError`` when `source` cannot be read or holds no binary
    ///   keyed archive.
    package convenience init(binaryArchive source: any RandomAccessBytes, limits: PropertyListLimits = .default)
        throws(KeyedArchiveError)
    {
        try self.init(opened: ArchiveObjects.open(binaryArchive: source, limits: limits), limits: limits)
    }

    private init(opened: (objects: ArchiveObjects, top: InstanceFields), limits: PropertyListLimits) {
        let (objects, top) = opened
        self.objects = objects
        self.limits = limits
        slots = Array(repeating: .empty, count: objects.count)
        frame = DecodingFrame(fields: top, uid: nil, archivedClass: nil)
        for (name, type) in ProcessClassNames.classesByName { registry.setClass(type, forClassName: name) }
    }

    // MARK: Classes

    /// Decodes objects archived under `name` as `type` (and allows `type`), in this
    /// decoder only; ``KeyedUnarchiver/setClass(_:forClassName:)`` sets it for every one.
    /// Corresponds to `NSKeyedUnarchiver`'s instance method `setClass(_:forClassName:)`.
    public func setClass(_ type: any KeyedCoding.Type, forClassName name: String) {
        registry.setClass(type, forClassName: name)
        registryGeneration += 1
    }

    /// The type set for `name` with ``setClass(_:forClassName:)``.
    public func `class`(forClassName name: String) -> (any KeyedCoding.Type)? {
        registry.explicitClass(forClassName: name)
    }

    /// Adds `types` to the allowed-classes set of what is decoded from here on, and makes
    /// the ``KeyedCoding/archiveClassName`` (or its unqualified part) of each ``KeyedCoding``
    /// type resolve to it. Entries are Keepsake types and Foundation's classes
    /// (`NSArray.self`, `NSDictionary.self`, `NSDate.self`…), as in Apple's lists; a type's
    /// subclasses are allowed with it. Corresponds to the class list of
    /// `unarchivedObject(ofClasses:from:)`.
    public func allowClasses(_ types: [Any.Type]) {
        var allowed = currentAllowedClasses
        for type in types {
            allowed.add(type)
            if let coding = type as? any KeyedCoding.Type { registry.allow(coding) }
        }
        allowedScope = .listed(allowed)
        registryGeneration += 1
    }

    /// The version archived for the class `name` (module-qualified or not), looked up in
    /// the chain of the object being decoded first; `0` when the archive has none.
    /// Corresponds to `NSCoder.version(forClassName:)`.
    public func version(forClassName name: String) -> Int {
        if let version = frame.archivedClass?.version(of: name) { return version }
        for archivedClass in classes.values {
            if let version = archivedClass.version(of: name) { return version }
        }
        return 0
    }

    // MARK: The object being decoded

    /// The keys of the object being decoded (of `$top` outside any `init(coder:)`).
    public var allKeys: [String] {
        (0..<frame.fields.count).compactMap { try? objects.key(at: $0, in: frame.fields) }.filter { $0 != "$class" }
    }

    /// Whether the object being decoded has `key`, even with a `nil` value.
    /// Corresponds to `containsValue(forKey:)`.
    public func containsValue(forKey key: String) -> Bool {
        objects.position(of: key, in: frame.fields, hint: frame.cursor) != nil
    }

    /// Records a failure the unarchiver throws once the current `init(coder:)` returns.
    /// Corresponds to `NSCoder.failWithError(_:)`, which takes any error: ported code
    /// passes its own (`NSError(domain: "X", code: 7)`). The first error wins.
    ///
    /// A ``KeyedArchiveError`` is kept as it is. Any other error is kept, unchanged, as the
    /// `underlyingError` of a `.decodingFailed` error, which the unarchiver throws:
    ///
    /// ```swift
    /// } catch let error as KeyedArchiveError {
    ///     let mine = error.underlyingError as? NSError   // the NSError passed in
    /// }
    /// ```
    public func failWithError(_ error: any Error) {
        guard self.error == nil else { return }
        self.error =
            error as? KeyedArchiveError
            ?? KeyedArchiveError(
                .decodingFailed, "init(coder:) failed with an error of its own: \(error)", uid: frame.uid,
                className: frame.archivedClass?.name, underlyingError: error)
    }

    /// The stored value under `key` in the current object, moving the search hint on.
    @inline(__always)
    func rawValue(forKey key: String) throws(KeyedArchiveError) -> PropertyListValue? {
        guard let position = objects.position(of: key, in: frame.fields, hint: frame.cursor) else { return nil }
        frame.cursor = position + 1
        return try objects.value(at: position, in: frame.fields)
    }

    /// The stored value under `key` of an object's dictionary.
    /// Searched from the second key: the first is usually `$class`.
    func field(_ key: String, in fields: InstanceFields) throws(KeyedArchiveError) -> PropertyListValue? {
        guard let position = objects.position(of: key, in: fields, hint: 1) else { return nil }
        return try objects.value(at: position, in: fields)
    }
}
