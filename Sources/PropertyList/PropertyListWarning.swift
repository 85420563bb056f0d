/// Something a reader let pass as Foundation does, for tools to point out: today, text
/// after the last `key = value;` pair of a `.strings` file, which Foundation ignores
/// (a merge that appended an XML property list leaves such text behind).
///
/// ```swift
/// let (value, _, warnings) = try PropertyListReader().readWithWarnings(bytes)
/// for warning in warnings { print("warning: \(warning)") }   // line 3, column 1: …
/// ```
public struct PropertyListWarning: Hashable, Sendable, CustomStringConvertible {
    /// What was let pass.
    public var message: String
    /// Byte offset into the input (of its UTF-8 transcoding for UTF-16 text).
    public var offset: Int
    /// One-based line and column of `offset`.
    public var line: Int
    public var column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}
