import Foundation

/// One entry of `$objects` as the encoder builds it.
///
/// Instances keep their fields in the encoder's flat field store (`fields[range]`) so
/// encoding an object allocates nothing per field; the writers turn entries into
/// binary objects or a property-list tree.
enum ArchiveEntry {
    case string(String)
    case data(Data)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case real(Double)
    case float(Float)
    case bool(Bool)
    /// `{$class: UID(classUID), key: value…}`.
    case instance(classUID: Int, fields: Range<Int>)
    /// `{$classname: chain[0], $classes: chain}`, plus `$classversions` (one per
    /// element of the chain) when any is not 0.
    case classDescription(chain: [String], versions: [Int])
    /// An instance whose fields are still being encoded.
    case pending
}

/// One key of an instance dictionary (or of `$top`).
struct ArchiveField {
    var key: String
    var value: ArchiveFieldValue
}

/// What a field holds: a reference, an inline scalar, or an inline array of
/// references (`NS.objects`, `NS.keys`).
enum ArchiveFieldValue {
    case uid(Int)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case real(Double)
    case float(Float)
    case bool(Bool)
    case data(Data)
    /// `uidPool[range]`.
    case uids(Range<Int>)
    /// A conditional reference: the object's UID if it was encoded unconditionally
    /// anywhere in the archive, otherwise `$null`. Resolved when the archive is written.
    case conditional(ObjectIdentifier)
}

/// Everything the writers need, frozen when encoding finishes.
struct ArchiveContent {
    var entries: [ArchiveEntry]
    var fields: [ArchiveField]
    var topFields: [ArchiveField]
    var uidPool: [Int]
    /// UIDs of objects encoded by identity, for resolving conditional references.
    var identities: [ObjectIdentifier: Int]

    func resolve(_ value: ArchiveFieldValue) -> ArchiveFieldValue {
        if case .conditional(let identity) = value { return .uid(identities[identity] ?? 0) }
        return value
    }
}
