extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for bodies that throw ``PropertyListError``: the standard
    /// library's version rethrows as `any Error`, its buffer-pointer sibling keeps the type.
    func withTypedBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> Result
    ) throws(PropertyListError) -> Result {
        try withUnsafeBufferPointer { (buffer) throws(PropertyListError) in try body(UnsafeRawBufferPointer(buffer)) }
    }
}
