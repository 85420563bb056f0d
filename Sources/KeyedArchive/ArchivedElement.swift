/// A set element or dictionary key whose decoded Swift value is not `Hashable` — an
/// array or dictionary, which Foundation hashes but Swift does not — identified by the
/// UID of its archived object.
///
/// Untyped decoding (``KeyedDecoder/decodeObject(forKey:)``, generic objects) returns
/// `Set<AnyHashable>` and `[AnyHashable: Any]`; Xcode's `xcuserstate` files, for one,
/// keep arrays in sets. Such members arrive wrapped in this type; ``value`` is the array
/// or dictionary itself.
public struct ArchivedElement: Hashable {
    /// The UID of the object in the archive it came from.
    public let uid: Int
    /// The decoded value.
    public let value: Any

    public static func == (lhs: ArchivedElement, rhs: ArchivedElement) -> Bool {
        lhs.uid == rhs.uid
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(uid)
    }
}
