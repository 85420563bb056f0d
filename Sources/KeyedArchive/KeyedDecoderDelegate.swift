/// What a ``KeyedDecoder`` asks when it meets a class it cannot find.
///
/// Corresponds to `NSKeyedUnarchiverDelegate`.
///
/// ```swift
/// final class Renames: KeyedDecoderDelegate {
///     func unarchiver(
///         _ unarchiver: KeyedDecoder, cannotDecodeObjectOfClassName name: String, originalClasses: [String]
///     ) -> (any KeyedCoding.Type)? {
///         name.hasSuffix(".Item") ? Item.self : nil
///     }
/// }
/// ```
public protocol KeyedDecoderDelegate: AnyObject {
    /// The type to decode objects archived as `name` with, or `nil` to fail with
    /// `.unknownClass`. `originalClasses` is the archived class chain (`$classes`). Asked
    /// once per class entry, after this decoder's and the process's class mappings and
    /// the names themselves; secure decoding still checks the type returned.
    /// Corresponds to `unarchiver(_:cannotDecodeObjectOfClassName:originalClasses:)`.
    func unarchiver(_ unarchiver: KeyedDecoder, cannotDecodeObjectOfClassName name: String, originalClasses: [String])
        -> (any KeyedCoding.Type)?
}
