extension String {
    /// The string's UTF-8 bytes where they are, for every string that keeps them
    /// contiguous (native strings, small ones included), or else from a copy. `withUTF8`
    /// needs a mutable string, and the copy made for it retains and releases the storage
    /// on every call.
    @inlinable
    package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }
}
