/// Turns a byte offset into the one-based line and column error messages show.
/// Computed only when an error is thrown, so parsers need not track lines.
enum TextPosition {
    static func lineAndColumn(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for position in 0..<min(offset, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return (line, offset - lineStart + 1)
    }

    /// A ``PropertyListError`` positioned at `offset` in a text format.
    static func error(
        _ code: PropertyListError.Code, _ message: String, at offset: Int, in bytes: UnsafeBufferPointer<UInt8>
    ) -> PropertyListError {
        let (line, column) = lineAndColumn(of: offset, in: bytes)
        return PropertyListError(code, message, offset: offset, line: line, column: column)
    }
}
