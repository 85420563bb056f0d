import Locking

// The fuzz targets compile this layer without the sandbox, and log nothing.
#if canImport(AppSandbox)
import AppSandbox
#endif

/// Something secure decoding let through that Apple warns about on the console, saying it
/// "will be disallowed in the future". ``KeyedDecoder/refusesWhatAppleWillDisallow``
/// refuses each of these now.
///
/// ```swift
/// let decoder = try KeyedDecoder(forReadingFrom: data)
/// decoder.allowClasses([Item.self])
/// _ = try decoder.decodeTopLevelObject(forKey: "root")
/// for warning in decoder.secureCodingWarnings { print(warning) }
/// ```
public struct SecureCodingWarning: Hashable, Sendable, CustomStringConvertible {
    /// What was let through.
    public struct Kind: Hashable, Sendable {
        let name: String

        /// An inline `NSString`, `NSNumber` or `NSData` whose class is not listed.
        public static let unlistedInlineValue = Kind(name: "unlistedInlineValue")
        /// `NSObject` in the allowed classes, which allows every class.
        public static let nsObjectListed = Kind(name: "nsObjectListed")
        /// `decodeObject(forKey:)` of a value stored inline, which is not an object.
        public static let nonObjectDecodedAsObject = Kind(name: "nonObjectDecodedAsObject")
        /// A subclass that answers ``KeyedSecureCoding/supportsSecureCoding`` through its
        /// superclass. Apple refuses one that overrides `init(coder:)` without overriding
        /// `supportsSecureCoding`; Swift does not show at run time which members a
        /// subclass overrides, so strict mode (``KeyedDecoder/refusesWhatAppleWillDisallow``)
        /// warns instead, and `keepsake port-check` finds such subclasses in the source.
        public static let inheritedSecureCoding = Kind(name: "inheritedSecureCoding")
    }

    public let kind: Kind
    /// The key being decoded (`NS.objects` for a collection's elements).
    public let key: String
    /// The class met (`NSString`), or for a non-object, its inline class.
    public let className: String
    /// The allowed classes in force, as Apple prints them: `{(NSArray, Homepwner.Item)}`.
    public let allowedClasses: String

    /// The warning in Apple's words.
    public var description: String {
        switch kind {
        case .unlistedInlineValue:
            "allowed unarchiving safe plist type '\(className)' for key '\(key)', even though it was not "
                + "explicitly included in the client allowed classes set: '\(allowedClasses)'. "
                + "This will be disallowed in the future."
        case .nsObjectListed:
            "NSSecureCoding allowed classes list contains [NSObject class], which bypasses security by allowing "
                + "any class to be implicitly decoded (met '\(className)' for key '\(key)'). Consider reducing "
                + "the scope of allowed classes during decoding by listing only the classes you expect to "
                + "decode, or a more specific base class than NSObject. This will become an error in the future. "
                + "Allowed class list: \(allowedClasses)"
        case .inheritedSecureCoding:
            "Class '\(className)' has a superclass that supports secure coding and does not say it supports "
                + "secure coding itself. Apple refuses it if it overrides -initWithCoder: without overriding "
                + "+supportsSecureCoding; declare `override class var supportsSecureCoding` in it."
        default:
            "decodeObject(forKey:): value for key (\(key)) is not an object. This will become an error in the future."
        }
    }

    /// Logs each warning once per process, as `os_log` lines are printed here (standard
    /// error, at the fault level). The set that remembers them is capped, since keys and
    /// class names come from the archives: past the cap, warnings are recorded on their
    /// decoder only.
    static func log(_ warning: SecureCodingWarning) {
        let isNew = logged.withLock { logged in
            guard logged.count < loggedLimit else { return false }
            return logged.insert(warning).inserted
        }
        guard isNew else { return }
        #if canImport(AppSandbox)
        StandardStream.error.report("[fault] Keepsake/KeyedDecoder: \(warning)")
        #endif
    }

    private static let loggedLimit = 1_000
    private static let logged = Locked(Set<SecureCodingWarning>())
}
