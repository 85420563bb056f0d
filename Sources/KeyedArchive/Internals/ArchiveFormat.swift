/// The fixed strings and numbers of the format.
enum ArchiveFormat {
    static let archiverName = "NSKeyedArchiver"
    static let version: Int64 = 100_000
    static let null = "$null"
    /// The key under which `archivedData(withRootObject:)` stores the root object.
    static let rootKey = "root"
}
