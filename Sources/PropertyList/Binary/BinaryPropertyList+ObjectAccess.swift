/// The reads a keyed unarchiver makes on every field access, answered from the
/// validated bytes without building an ``BinaryPropertyList/Object``: where a
/// dictionary's references lie, one reference, a UID, and the scalars that need no
/// allocation beyond a short string.
///
/// The trailer and every offset were checked when the document was opened; each call
/// here checks only what the object itself declares, against the object area.
extension BinaryPropertyList {
    /// Where the references of dictionary object `index` start, and how many entries it
    /// has (its keys' references come first, then its values'); `nil` when the object is
    /// not a dictionary or `index` is out of range.
    /// - Throws: ``PropertyListError`` when the dictionary's length is malformed or its
    ///   references run past the object area.
    package func dictionaryExtent(ofObject index: Int) throws(PropertyListError) -> (payload: Int, count: Int)? {
        try withReader { (reader) throws(PropertyListError) in
            guard let offset = reader.checkedOffset(ofObject: index), reader.bytes[offset] >> 4 == 0xD else {
                return nil
            }
            let header = try reader.header(at: offset, objectIndex: index)
            return (header.payload, header.count)
        }
    }

    /// The object number stored at `position` among the references that start at
    /// `payload` (from ``dictionaryExtent(ofObject:)``, which checked their extent);
    /// `nil` when it names no object.
    @inline(__always)
    package func reference(at payload: Int, position: Int) -> Int? {
        withReader { $0.reference(at: payload, position: position) }
    }

    /// The object referenced at `position` among the references that start at
    /// `payload`, when it is a UID, read without making a value; `nil` for anything else
    /// (a UID wider than 8 bytes included, which ``object(at:)`` refuses). One call for
    /// ``reference(at:position:)`` and the read: the keyed unarchiver makes it for every
    /// object reference it decodes.
    package func uid(referencedAt payload: Int, position: Int) -> UInt64? {
        withReader { (reader) -> UInt64? in
            guard let index = reader.reference(at: payload, position: position),
                let offset = reader.checkedOffset(ofObject: index)
            else { return nil }
            return reader.uid(at: offset)
        }
    }

    /// Object `index` when it is a boolean, an integer of up to 8 bytes, a real, a date,
    /// a UID or an ASCII string; `nil` for anything else, and for an object that is
    /// malformed, which ``object(at:)`` then reports.
    package func simpleScalar(ofObject index: Int) -> PropertyListValue? {
        withReader { (reader) -> PropertyListValue? in
            guard let offset = reader.checkedOffset(ofObject: index) else { return nil }
            return reader.simpleScalar(at: offset)
        }
    }

    /// ``simpleScalar(ofObject:)`` of the object referenced at `position` among the
    /// references that start at `payload`, in one call: it is a boolean, an integer of up to 8 bytes, a real, a date, a
    /// UID or an ASCII string; `nil` for anything else, and for an object that is
    /// malformed, which ``object(at:)`` then reports.
    package func simpleScalar(referencedAt payload: Int, position: Int) -> PropertyListValue? {
        withReader { (reader) -> PropertyListValue? in
            guard let index = reader.reference(at: payload, position: position),
                let offset = reader.checkedOffset(ofObject: index)
            else { return nil }
            return reader.simpleScalar(at: offset)
        }
    }
}
