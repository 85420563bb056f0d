/// A ``KeyedCoding`` type whose `init(coder:)` is safe on data that may not be your own:
/// it reads every object with the type it expects. Secure decoding, the unarchiver's
/// default, instantiates only these, and only while ``supportsSecureCoding`` is `true`.
///
/// Corresponds to `NSSecureCoding`. A ported class spells it as the book does:
///
/// | Apple | Keepsake |
/// |---|---|
/// | `class Item: NSObject, NSCoding` | `final class Item: KeyedCoding` (insecure decoding only) |
/// | `class Item: NSObject, NSSecureCoding` | `final class Item: KeyedSecureCoding` |
/// | `static var supportsSecureCoding: Bool { true }` | the same line |
///
/// ```swift
/// final class Item: KeyedSecureCoding {
///     static var supportsSecureCoding: Bool { true }
///     var name: String
///
///     func encode(with coder: KeyedEncoder) { coder.encode(name, forKey: "name") }
///     init?(coder: KeyedDecoder) throws {
///         guard let name = coder.decodeObject(of: String.self, forKey: "name") else { return nil }
///         self.name = name
///     }
/// }
/// ```
///
/// A subclass inherits its superclass's answer. Apple also refuses a subclass that
/// overrides `init(coder:)` without overriding `supportsSecureCoding`; Swift does not
/// show at run time which initializers a subclass overrides, so the unarchiver cannot,
/// and `keepsake port-check` finds such subclasses in the source instead: declare
/// `override class var supportsSecureCoding` in each subclass whose `init(coder:)` you write.
public protocol KeyedSecureCoding: KeyedCoding {
    /// Whether instances may be decoded securely. Corresponds to `supportsSecureCoding`.
    static var supportsSecureCoding: Bool { get }
}
