// Secure decoding as Foundation runs it: the allowed-classes set of each decode, the
// classes that pass unlisted with a warning, and the errors for the rest.

/// Where the allowed-classes set of the decode in progress comes from. A typed call
/// narrows it to the type it asks for, for everything read inside; an untyped call
/// (``KeyedDecoder/decodeObject(forKey:)``) inherits it.
enum AllowedScope {
    /// A typed request: its type's classes (``KeyedArchivable/_allowedClasses``).
    case requested(any KeyedArchivable.Type)
    /// A list: ``KeyedDecoder/allowClasses(_:)``, `decodeObject(of:forKey:)` with a list.
    case listed(AllowedClasses)
}

extension KeyedDecoder {
    /// The allowed-classes set in force.
    var currentAllowedClasses: AllowedClasses {
        switch allowedScope {
        case .listed(let allowed): return allowed
        case .requested(let type):
            let identity = ObjectIdentifier(type)
            if let known = requestedClasses[identity] { return known }
            let allowed = AllowedClasses(type._allowedClasses)
            requestedClasses[identity] = allowed
            return allowed
        }
    }

    /// Runs `body` with `key` as the key the warnings and errors name.
    @inline(__always)
    func withCheckedKey<Value>(_ key: String, _ body: () throws(KeyedArchiveError) -> Value)
        throws(KeyedArchiveError) -> Value
    {
        let outer = checkedKey
        checkedKey = key
        defer { checkedKey = outer }
        return try body()
    }

    // MARK: The checks of an untyped decode

    /// Checks an inline string, number or data (`NSString`, `NSNumber`, `NSData`): listed,
    /// or let through with a warning as Apple does, or refused in strict mode.
    func checkInlineValue(className: String, uid: Int) throws(KeyedArchiveError) {
        guard !allowsGenericObjects || simulatesSecureDecoding else { return }
        let allowed = currentAllowedClasses
        try warnIfNSObjectListed(allowed, className: className, uid: uid)
        guard !allowed.allows(chain: [className]) else { return }
        try warn(.unlistedInlineValue, className: className, allowed: allowed, uid: uid)
    }

    /// Checks an object of one of Foundation's classes (`NSArray`, `NSDate`…), or in a
    /// simulation of any class, by name: it, or a superclass in its archived chain, is listed.
    func checkClassByName(_ archivedClass: ArchivedClass, uid: Int) throws(KeyedArchiveError) {
        guard !allowsGenericObjects || simulatesSecureDecoding else { return }
        let allowed = currentAllowedClasses
        try warnIfNSObjectListed(allowed, className: archivedClass.name, uid: uid)
        guard allowed.allows(chain: archivedClass.checkedHierarchy) else {
            throw notAllowedError(archivedClass.name, allowed: allowed, uid: uid)
        }
    }

    /// Checks the type an object of a Keepsake type is about to be made as: the type, or
    /// a superclass, is listed, and it supports secure coding.
    func checkCodingObject(_ type: any KeyedCoding.Type, archivedClass: ArchivedClass, uid: Int)
        throws(KeyedArchiveError)
    {
        let allowed = currentAllowedClasses
        try warnIfNSObjectListed(allowed, className: archivedClass.name, uid: uid)
        guard allowed.allows(type) else {
            throw notAllowedError(type.archiveClassName, allowed: allowed, uid: uid)
        }
        try checkSupportsSecureCoding(type, archivedClass: archivedClass, uid: uid)
    }

    /// Secure decoding makes only types that adopt ``KeyedSecureCoding`` and say so.
    func checkSupportsSecureCoding(_ type: any KeyedCoding.Type, archivedClass: ArchivedClass, uid: Int)
        throws(KeyedArchiveError)
    {
        guard let secure = type as? any KeyedSecureCoding.Type else {
            throw KeyedArchiveError(
                .classNotAllowed,
                "This decoder will only decode classes that adopt NSSecureCoding (KeyedSecureCoding). "
                    + "Class '\(type.archiveClassName)' does not adopt it.",
                uid: uid, className: archivedClass.name)
        }
        guard secure.supportsSecureCoding else {
            throw KeyedArchiveError(
                .classNotAllowed,
                "Class '\(type.archiveClassName)' disallows secure coding. It must return YES from supportsSecureCoding.",
                uid: uid, className: archivedClass.name)
        }
        // Whether the subclass overrides init(coder:) cannot be seen here: strict mode
        // says what Apple would check, without refusing what may be correct.
        if refusesWhatAppleWillDisallow, let superclass = (type as? AnyClass).flatMap(_getSuperclass),
            superclass is any KeyedSecureCoding.Type
        {
            let className = type.archiveClassName
            if isFirst(.inheritedSecureCoding, className: className) {
                record(.inheritedSecureCoding, className: className, allowed: currentAllowedClasses)
            }
        }
    }

    /// Checks again an object decoded earlier, now reached under the current set.
    func recheckDecodedObject(uid: Int, value: Any) throws(KeyedArchiveError) {
        switch try readEntry(uid) {
        case .scalar(let scalar):
            if let className = scalar.inlineClassName { try checkInlineValue(className: className, uid: uid) }
        case .instance(let fields):
            let archivedClass = try archivedClass(of: fields, uid: uid)
            if let object = value as? any KeyedCoding {
                try checkCodingObject(Swift.type(of: object), archivedClass: archivedClass, uid: uid)
            } else if archivedClass.foundationKind != nil || simulatesSecureDecoding {
                try checkClassByName(archivedClass, uid: uid)
            }
        // Outside a simulation, generic objects stand for classes no type was given for;
        // they run no code.
        }
    }

    /// Whether the archive's root is an inline string, number or data, which secure
    /// decoding lets through unlisted (with its warning, or refused in strict mode), so
    /// that a typed one-liner asking for another type returns `nil` as Foundation's does.
    func passesUnlistedInlineRoot(as type: any KeyedArchivable.Type) throws(KeyedArchiveError) -> Bool {
        guard let position = objects.position(of: ArchiveFormat.rootKey, in: frame.fields, hint: 0) else {
            return false
        }
        var uid = 0  // an inline root has no entry of its own
        var stored = try objects.value(at: position, in: frame.fields)
        if case .uid(let reference) = stored {
            uid = try checkedUID(reference)
            guard case .scalar(let value) = try readEntry(uid) else { return false }
            stored = value
        }
        guard let className = stored.inlineClassName else { return false }
        let outerScope = allowedScope
        allowedScope = .requested(type)
        defer { allowedScope = outerScope }
        try withCheckedKey(ArchiveFormat.rootKey) { () throws(KeyedArchiveError) in
            try checkInlineValue(className: className, uid: uid)
        }
        return true
    }

    /// ``decodeObject(forKey:)`` of a value stored inline (an integer, a boolean): not an
    /// object, so `nil`, with a warning (an error in strict mode).
    func refuseNonObject(_ value: PropertyListValue) throws(KeyedArchiveError) {
        try warn(
            .nonObjectDecodedAsObject, className: value.inlineClassName ?? value.kindName,
            allowed: currentAllowedClasses, uid: frame.uid)
    }

    // MARK: The collection calls

    /// Runs a collection call's decode (`decodeArrayOfObjects(ofClass:forKey:)`…), in
    /// which one collection may be met: its own.
    func decodingOneCollection<Value>(_ body: () -> Value) -> Value {
        let outer = collectionCall
        collectionCall = .expecting
        defer { collectionCall = outer }
        return body()
    }

    /// Counts a collection met: in a collection call, a second one anywhere below the
    /// first is refused, as Foundation refuses nested collections there.
    func countCollection(_ kind: FoundationClass, uid: Int) throws(KeyedArchiveError) {
        switch collectionCall {
        case .none: return
        case .expecting: collectionCall = .met
        case .met:
            // A typed decode does not name its key here; the error's key path does.
            let subject = checkedKey.isEmpty ? "value" : "value for key (\(checkedKey))"
            throw KeyedArchiveError(
                .classNotAllowed, "\(subject) contains too many nested (\(kind.baseClassName))s", uid: uid,
                className: kind.baseClassName)
        }
    }

    // MARK: Errors and warnings

    /// Foundation's 4864 error for a class outside the set.
    func notAllowedError(_ className: String, allowed: AllowedClasses, uid: Int) -> KeyedArchiveError {
        KeyedArchiveError(
            .classNotAllowed,
            "value for key '\(checkedKey)' was of unexpected class '\(className)'. Allowed classes are: \(allowed.description)",
            uid: uid, className: className)
    }

    private func warnIfNSObjectListed(_ allowed: AllowedClasses, className: String, uid: Int)
        throws(KeyedArchiveError)
    {
        guard allowed.listsNSObject else { return }
        try warn(.nsObjectListed, className: className, allowed: allowed, uid: uid)
    }

    /// Records a warning the first time (``record(_:className:allowed:)``); in strict
    /// mode refuses instead.
    private func warn(_ kind: SecureCodingWarning.Kind, className: String, allowed: AllowedClasses, uid: Int?)
        throws(KeyedArchiveError)
    {
        guard refusesWhatAppleWillDisallow else {
            if isFirst(kind, className: className) { record(kind, className: className, allowed: allowed) }
            return
        }
        let warning = SecureCodingWarning(
            kind: kind, key: checkedKey, className: className, allowedClasses: allowed.description)
        throw KeyedArchiveError(
            kind == .nonObjectDecodedAsObject ? .typeMismatch : .classNotAllowed,
            "refused in strict mode: \(warning.description)", uid: uid, className: className)
    }

    /// Whether this is the first warning of its kind for this key and class: met again,
    /// a warning costs a set lookup, not a message. Inline, and apart from `record`:
    /// every unlisted inline string passes here, and handing it the allowed set too
    /// cost about 45 instructions a string (`decode-archive`).
    @inline(__always)
    private func isFirst(_ kind: SecureCodingWarning.Kind, className: String) -> Bool {
        warnedAbout.insert(WarnedAbout(kind: kind, key: checkedKey, className: className)).inserted
    }

    /// Records a warning, and logs it once per process.
    private func record(_ kind: SecureCodingWarning.Kind, className: String, allowed: AllowedClasses) {
        let warning = SecureCodingWarning(
            kind: kind, key: checkedKey, className: className, allowedClasses: allowed.description)
        secureCodingWarnings.append(warning)
        // A simulation reports its warnings itself.
        if !simulatesSecureDecoding { SecureCodingWarning.log(warning) }
    }
}

extension PropertyListValue {
    /// The Foundation class an inline `$objects` value stands for.
    var inlineClassName: String? {
        switch self {
        case .string: "NSString"
        case .data: "NSData"
        case .integer, .unsignedInteger, .real, .float, .bool: "NSNumber"
        default: nil
        }
    }
}

/// What a warning is given once for.
struct WarnedAbout: Hashable {
    let kind: SecureCodingWarning.Kind
    let key: String
    let className: String
}

/// Where a collection call stands: none running, its collection still to come, or met.
enum CollectionCall {
    case none, expecting, met
}
