/// The reads a keyed unarchiver makes on every field access, answered from the
/// validated bytes without building an ``BinaryPropertyList/Object``: where a
/// dictionary's references lie, one reference, a UID, and the scalars that need no
/// allocation beyond a short string.
///
/// The trailer and every offset were checked when the document was opened; each call
/// here checks only what the object itself declares, against the object area. They
/// read the bytes as they are, so they serve documents made from bytes in memory, as
/// the keyed unarchiver makes them, and not documents opened on a ``RandomAccessBytes``
/// source, whose objects are read into memory as they are visited.
extension BinaryPropertyList {
    /// Where the references of dictionary object `index` start, and how many entries it
    /// has (its keys' references come first, then its values'); `nil` when the object is
    /// not a dictionary or `index` is out of range.
    /// - Throws: ``PropertyListError`` when the dictionary's length is malformed or its
    ///   references run past the object area.
    package func dictionaryExtent(ofObject index: Int) throws(PropertyListError) -> (payload: Int, count: Int)? {
        try withResidentReader { (reader) throws(PropertyListError) in
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
        withResidentReader { $0.reference(at: payload, position: position) }
    }

    /// The object referenced at `position` among the references that start at
    /// `payload`, when it is a UID, read without making a value; `nil` for anything else
    /// (a UID wider than 8 bytes included, which ``object(at:)`` refuses). One call for
    /// ``reference(at:position:)`` and the read: the keyed unarchiver makes it for every
    /// object reference it decodes.
    package func uid(referencedAt payload: Int, position: Int) -> UInt64? {
        withResidentReader { (reader) -> UInt64? in
            reader.checkedOffset(referencedAt: payload, position: position).flatMap { reader.uid(at: $0) }
        }
    }

    /// Object `index` when it is a boolean, an integer of up to 8 bytes, a real, a date,
    /// a UID or an ASCII string; `nil` for anything else, and for an object that is
    /// malformed, which ``object(at:)`` then reports.
    package func simpleScalar(ofObject index: Int) -> PropertyListValue? {
        withResidentReader { (reader) -> PropertyListValue? in
            guard let offset = reader.checkedOffset(ofObject: index) else { return nil }
            return reader.simpleScalar(at: offset)
        }
    }

    /// ``simpleScalar(ofObject:)`` of the object referenced at `position` among the
    /// references that start at `payload`, in one call: it is a boolean, an integer of up to 8 bytes, a real, a date, a
    /// UID or an ASCII string; `nil` for anything else, and for an object that is
    /// malformed, which ``object(at:)`` then reports.
    package func simpleScalar(referencedAt payload: Int, position: Int) -> PropertyListValue? {
        withResidentReader { (reader) -> PropertyListValue? in
            reader.checkedOffset(referencedAt: payload, position: position).flatMap { reader.simpleScalar(at: $0) }
        }
    }

    /// The text of object `index` when it is an ASCII string, where it lies in the
    /// document's memory (which never moves or changes while the document lives); `nil`
    /// for anything else (a UTF-16 string, a byte above 0x7F, a malformed object), which
    /// ``object(at:)`` then reads or reports. For comparing keys without making strings:
    /// not generic, so that callers in other modules get it specialised.
    package func asciiString(ofObject index: Int) -> UnsafeRawBufferPointer? {
        withResidentReader { (reader) -> UnsafeRawBufferPointer? in
            guard let offset = reader.checkedOffset(ofObject: index), let text = reader.asciiStringPayload(at: offset)
            else { return nil }
            let characters = UnsafeRawBufferPointer(rebasing: reader.bytes[text])
            return ASCIIBytes.areASCII(characters) ? characters : nil
        }
    }

    @inline(__always)
    private func withResidentReader<Result, Failure: Error>(
        _ body: (BinaryObjectReader) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        assert(bytes.isResident, "object access needs a document made from bytes in memory")
        return try withReader(body)
    }
}
