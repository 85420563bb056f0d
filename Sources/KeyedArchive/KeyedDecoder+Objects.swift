// The unarchiver's core: entries by UID, class tables, type resolution, instances.

extension KeyedDecoder {
    /// `uid` as an index into `$objects`.
    /// - Throws: `.uidOutOfRange`.
    func checkedUID(_ uid: PropertyListUID) throws(KeyedArchiveError) -> Int {
        guard uid.value < UInt64(slots.count) else {
            throw KeyedArchiveError(
                .uidOutOfRange, "UID \(uid.value) is past the end of $objects (\(slots.count) entries)",
                uid: Int(clamping: uid.value))
        }
        return Int(uid.value)
    }

    /// ``ArchiveObjects/asciiText(_:)`` of entry `uid`: an ASCII string of a binary
    /// archive in place, without making a string.
    func readASCIIText(_ uid: Int) throws(KeyedArchiveError) -> UnsafeRawBufferPointer? {
        do {
            return try objects.asciiText(uid)
        } catch {
            throw error.located(uid: uid)
        }
    }

    func readEntry(_ uid: Int) throws(KeyedArchiveError) -> ArchiveObjectEntry {
        do {
            return try objects.entry(uid)
        } catch {
            throw error.located(uid: uid)
        }
    }

    /// The class of an object dictionary, read once per class entry and checked.
    /// - Throws: `.invalidObject` without `$class`, `.invalidClassTable` when `$class`
    ///   does not lead to a `{$classname, $classes}` dictionary.
    func archivedClass(of fields: InstanceFields, uid: Int) throws(KeyedArchiveError) -> ArchivedClass {
        // Decoding a Foundation value asks twice for the same object's class.
        if let (lastUID, lastClass) = lastClassLookup, lastUID == uid { return lastClass }
        let archivedClass = try readClass(of: fields, uid: uid)
        lastClassLookup = (uid, archivedClass)
        return archivedClass
    }

    private func readClass(of fields: InstanceFields, uid: Int) throws(KeyedArchiveError) -> ArchivedClass {
        guard let position = objects.position(of: "$class", in: fields) else {
            throw KeyedArchiveError(.invalidObject, "an object dictionary without $class", uid: uid)
        }
        guard let classReference = objects.uid(at: position, in: fields) else {
            let reference = try objects.value(at: position, in: fields)
            throw KeyedArchiveError(
                .invalidClassTable, "$class is \(reference.archiveDescription), not a UID", uid: uid)
        }
        let classUID = try checkedUID(classReference)
        if case .classDescription(let known) = slots[classUID] { return known }
        if let known = classes[classUID] { return known }
        guard classUID != 0, classUID != uid else {
            throw KeyedArchiveError(
                .invalidClassTable, "$class points to UID \(classUID), which cannot be a class", uid: uid)
        }
        guard case .instance(let description) = try readEntry(classUID) else {
            throw KeyedArchiveError(
                .invalidClassTable, "$class points to UID \(classUID), which is not a dictionary", uid: uid)
        }
        guard case .string(let name)? = try field("$classname", in: description) else {
            throw KeyedArchiveError(.invalidClassTable, "class entry \(classUID) has no $classname string", uid: uid)
        }
        var chain = [name]
        if let names = try field("$classes", in: description) {
            guard case .array(let elements) = names, !elements.isEmpty else {
                throw KeyedArchiveError(
                    .invalidClassTable, "$classes of \(name) is not a list of names", uid: uid, className: name)
            }
            chain = []
            for element in elements {
                guard case .string(let superclass) = element else {
                    throw KeyedArchiveError(
                        .invalidClassTable, "$classes of \(name) holds a non-string", uid: uid, className: name)
                }
                chain.append(superclass)
            }
        }
        var versions: [Int] = []
        if case .array(let elements)? = try field("$classversions", in: description) {
            versions = elements.map { $0.int64Value.flatMap { Int(exactly: $0) } ?? 0 }
        }
        // Hints that are not names are skipped, as a lookup by name would find nothing.
        var hints: [String] = []
        if case .array(let elements)? = try field("$classhints", in: description) {
            hints = elements.compactMap(\.stringValue)
        }
        let archivedClass = ArchivedClass(uid: classUID, name: name, chain: chain, versions: versions, hints: hints)
        classes[classUID] = archivedClass
        if case .empty = slots[classUID] { slots[classUID] = .classDescription(archivedClass) }
        return archivedClass
    }

    // MARK: Types

    /// The type to instantiate for `archivedClass`, in Foundation's order: its name as
    /// the registry knows it (this decoder's mappings, then the process's) or as it names
    /// a Swift class of this process (`NSClassFromString`); then each of its
    /// `$classhints`; last what the ``delegate`` names. The superclasses of `$classes`
    /// are never tried: an unknown class is not decoded as an ancestor it names, unless
    /// the archiver listed that ancestor as a hint. Whether secure decoding may make the
    /// type is the caller's check.
    ///
    /// Sources: swift-corelibs-foundation's `NSKeyedUnarchiver._validateAndMapClassDictionary`
    /// (class name, then `$classhints`, then the delegate with `$classes` as the original
    /// classes), and Apple's `classFallbacksForKeyedArchiver`.
    func resolveType(_ archivedClass: ArchivedClass) -> (any KeyedCoding.Type)? {
        switch archivedClass.resolution {
        case .type(let type): return type
        case .none(let generation) where generation == registryGeneration: return nil
        default: break
        }
        func lookUp(_ name: String) -> (any KeyedCoding.Type)? {
            registry.type(forName: name) ?? ClassRegistry.runtimeType(named: name)
        }
        if let type = lookUp(archivedClass.name) ?? archivedClass.hints.lazy.compactMap(lookUp).first {
            archivedClass.resolution = .type(type)
            return type
        }
        // Last, as in Foundation: the delegate may name a type for the class.
        if let type = delegate?.unarchiver(
            self, cannotDecodeObjectOfClassName: archivedClass.name, originalClasses: archivedClass.chain)
        {
            archivedClass.resolution = .type(type)
            return type
        }
        archivedClass.resolution = .none(generation: registryGeneration)
        return nil
    }

    func unknownClassError(_ archivedClass: ArchivedClass, uid: Int) -> KeyedArchiveError {
        KeyedArchiveError(
            .unknownClass,
            "no type is known for class \(archivedClass.name) (\(archivedClass.chain.joined(separator: " < ")))",
            uid: uid, className: archivedClass.name)
    }

    /// A typed request allows its type, as `decodeObject(of:forKey:)` does.
    @inline(__always)
    func allowRequested(_ type: any KeyedCoding.Type) {
        let identity = ObjectIdentifier(type)
        guard lastAllowedType != identity else { return }
        lastAllowedType = identity
        if !registry.isAllowed(type) {
            registry.allow(type)
            registryGeneration += 1
        }
    }

    // MARK: Instances

    /// Decodes the object at `uid` as a `Coded` (or a subclass the archive names).
    /// - Throws: ``KeyedArchiveError``.
    func decodeInstance<Coded: KeyedCoding>(of type: Coded.Type, uid: Int) throws(KeyedArchiveError) -> Coded {
        // decodeInstance(uid:requested:) returns only objects of Coded or a subclass, so
        // the cast cannot fail (and `as!` needs no optional type made at run time).
        try decodeInstance(uid: uid, requested: Coded.self) as! Coded
    }

    /// ``decodeInstance(of:uid:)`` without generics, so the per-object path needs no
    /// generic metadata at run time.
    private func decodeInstance(uid: Int, requested: any KeyedCoding.Type) throws(KeyedArchiveError) -> any KeyedCoding
    {
        switch slots[uid] {
        case .empty:
            break
        case .value(let value):
            guard let object = value as? any KeyedCoding,
                ArchivedClass.isType(Swift.type(of: object), kindOf: requested)
            else {
                fallthrough
            }
            return object
        default:
            if let known = try memoizedValue(uid, as: Any.self) {
                throw KeyedArchiveError(
                    .typeMismatch, "expected \(requested), found \(Swift.type(of: known))", uid: uid)
            }
        }
        guard case .instance(let fields) = try readEntry(uid) else {
            throw KeyedArchiveError(.typeMismatch, "expected \(requested), found a plain value", uid: uid)
        }
        let archivedClass = try archivedClass(of: fields, uid: uid)
        allowRequested(requested)
        guard let resolved = resolveType(archivedClass) else {
            if archivedClass.foundationKind != nil {
                throw KeyedArchiveError(
                    .typeMismatch, "expected \(requested), found \(archivedClass.name)", uid: uid,
                    className: archivedClass.name)
            }
            throw unknownClassError(archivedClass, uid: uid)
        }
        guard archivedClass.resolves(resolved, as: requested) else {
            throw KeyedArchiveError(
                .typeMismatch, "expected \(requested), found \(archivedClass.name) (\(resolved))", uid: uid,
                className: archivedClass.name)
        }
        // The request allows its type and subclasses; each must support secure coding.
        if requiresSecureCoding, !archivedClass.isSecure(resolved) {
            try checkSupportsSecureCoding(resolved, archivedClass: archivedClass, uid: uid)
            archivedClass.markSecure(resolved)
        }
        return try construct(resolved, fields: fields, archivedClass: archivedClass, uid: uid)
    }

    /// Runs `type.init(coder:)` on the object at `uid` and memoises the result.
    func construct(
        _ type: any KeyedCoding.Type, fields: InstanceFields, archivedClass: ArchivedClass, uid: Int
    ) throws(KeyedArchiveError) -> any KeyedCoding {
        guard depth < limits.maxDepth else {
            throw KeyedArchiveError(.limitExceeded, "objects nested deeper than \(limits.maxDepth)", uid: uid)
        }
        slots[uid] = .decoding
        depth += 1
        savedFrames.append(frame)
        frame = DecodingFrame(fields: fields, uid: uid, archivedClass: archivedClass)
        let hadError = error != nil
        let object: any KeyedCoding
        do {
            object = try type._instantiate(coder: self)
        } catch {
            frame = savedFrames.removeLast()
            depth -= 1
            slots[uid] = .empty
            // An init(coder:) that called failWithError and returned nil reports that
            // error, unchanged, as Foundation hands it back.
            let recorded = hadError ? nil : self.error
            if recorded != nil { self.error = nil }
            let failure =
                recorded ?? (error as? KeyedArchiveError)
                ?? KeyedArchiveError(
                    .decodingFailed, "\(type).init(coder:) failed: \(error)", uid: uid, className: archivedClass.name,
                    underlyingError: error)
            throw failure.located(uid: uid, className: archivedClass.name)
        }
        frame = savedFrames.removeLast()
        depth -= 1
        if !hadError, let recorded = error {
            // A non-throwing call failed inside init(coder:): the object is not trusted.
            error = nil
            slots[uid] = .empty
            throw recorded.located(uid: uid, className: archivedClass.name)
        }
        slots[uid] = .value(object)
        resolveBackReferences(to: uid, with: object)
        return object
    }

    func resolveBackReferences(to uid: Int, with value: Any) {
        guard !backReferences.isEmpty, let waiting = backReferences.removeValue(forKey: uid) else { return }
        for assign in waiting { assign(value) }
    }

    // MARK: Memo

    /// The memoised value at `uid` as a `Value`, `nil` when not decoded yet.
    /// - Throws: `.cycle` when the UID is being decoded, `.typeMismatch` when it
    ///   decoded to another type.
    @inline(__always)
    func memoizedValue<Value>(_ uid: Int, as type: Value.Type) throws(KeyedArchiveError) -> Value? {
        let found: Any
        switch slots[uid] {
        case .empty: return nil
        case .decoding:
            throw KeyedArchiveError(
                .cycle,
                "UID \(uid) is reached again while it is being decoded, and \(Value.self) cannot hold a back reference (use decodeBackReference)",
                uid: uid)
        case .classDescription(let archivedClass):
            throw KeyedArchiveError(
                .invalidObject, "UID \(uid) is the class description of \(archivedClass.name), not an object", uid: uid)
        case .string(let string): found = string
        case .data(let data): found = data
        case .value(let value): found = value
        }
        guard let typed = found as? Value else {
            throw KeyedArchiveError(.typeMismatch, "expected \(Value.self), found \(Swift.type(of: found))", uid: uid)
        }
        return typed
    }

    /// Decodes the entry at `uid` with `body` once, memoised, with cycle detection and
    /// the depth limit; for value types built from other objects (arrays, dates, URLs).
    @inline(__always)
    func memoized<Value>(
        _ uid: Int, as type: Value.Type, entry: ArchiveObjectEntry? = nil,
        _ body: (ArchiveObjectEntry) throws(KeyedArchiveError) -> Value
    ) throws(KeyedArchiveError) -> Value {
        if let known = try memoizedValue(uid, as: Value.self) { return known }
        guard uid != 0 else { throw KeyedArchiveError(.typeMismatch, "expected \(Value.self), found nil", uid: 0) }
        guard depth < limits.maxDepth else {
            throw KeyedArchiveError(.limitExceeded, "objects nested deeper than \(limits.maxDepth)", uid: uid)
        }
        let entry = if let entry { entry } else { try readEntry(uid) }
        slots[uid] = .decoding
        depth += 1
        do {
            let value = try body(entry)
            depth -= 1
            slots[uid] = .value(value)
            resolveBackReferences(to: uid, with: value)
            return value
        } catch {
            depth -= 1
            slots[uid] = .empty
            throw error.located(uid: uid)
        }
    }

    /// The fields of an object of Foundation class `kind` (or a subclass).
    /// - Throws: `.typeMismatch` for a plain value or another class.
    func foundationFields(_ entry: ArchiveObjectEntry, kind: FoundationClass, uid: Int) throws(KeyedArchiveError)
        -> InstanceFields
    {
        guard case .instance(let fields) = entry else {
            guard case .scalar(let value) = entry else { preconditionFailure("two cases") }
            throw KeyedArchiveError(
                .typeMismatch, "expected \(kind.baseClassName), found \(value.archiveDescription)", uid: uid)
        }
        let archivedClass = try archivedClass(of: fields, uid: uid)
        guard archivedClass.foundationKind == kind || archivedClass.isKind(of: kind.baseClassName) else {
            throw KeyedArchiveError(
                .typeMismatch, "expected \(kind.baseClassName), found \(archivedClass.name)", uid: uid,
                className: archivedClass.name)
        }
        return fields
    }
}

extension KeyedArchiveError {
    /// Fills in the UID and class where a deeper level did not.
    func located(uid: Int, className: String? = nil) -> KeyedArchiveError {
        var error = self
        if error.uid == nil { error.uid = uid }
        if error.className == nil { error.className = className }
        return error
    }
}
