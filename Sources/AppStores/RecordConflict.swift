public import Foundation
public import KeyedArchive

/// One item changed here and, since this store last read it, by someone else: what a
/// backend shared between processes reports instead of overwriting either change.
/// Corresponds to CloudKit's `serverRecordChanged` error with its ancestor, client and
/// server records.
///
/// Each version is the item's keyed archive, or `nil` where it does not exist (new
/// here, deleted here, deleted elsewhere).
///
/// ```swift
/// catch let error as StoreError where error.code == .conflict {
///     for conflict in error.conflicts {
///         let versions = try conflict.versions(as: Item.self)
///         print(versions.ancestor?.name, versions.local?.name, versions.server?.name)
///     }
/// }
/// ```
public struct RecordConflict: Sendable, CustomStringConvertible {
    /// The item's identity (`Identifiable.id`, as text).
    public let recordID: String
    /// The item as this store's items in memory have it from their last load (or
    /// from this store's last save of it); `nil` when it was new here.
    public let ancestor: Data?
    /// The item as this store would have saved it; `nil` when it was deleted here.
    public let local: Data?
    /// The item as it is saved now; `nil` when it was deleted there.
    public let server: Data?
    /// The backend's change tag of ``server``, which the backend checks when the app
    /// says it has settled the conflict.
    public let serverChangeTag: String?

    public init(recordID: String, ancestor: Data?, local: Data?, server: Data?, serverChangeTag: String? = nil) {
        self.recordID = recordID
        self.ancestor = ancestor
        self.local = local
        self.server = server
        self.serverChangeTag = serverChangeTag
    }

    /// The three versions decoded.
    /// - Throws: `KeyedArchiveError` when one is not an archive of `Model`.
    public func versions<Model: KeyedArchivable>(
        as model: Model.Type
    ) throws(KeyedArchiveError) -> (ancestor: Model?, local: Model?, server: Model?) {
        func decoded(_ data: Data?) throws(KeyedArchiveError) -> Model? {
            guard let data else { return nil }
            return try KeyedUnarchiver.unarchivedStoredObject(ofClass: Model.self, from: data)
        }
        return (try decoded(ancestor), try decoded(local), try decoded(server))
    }

    public var description: String {
        func size(_ data: Data?) -> String { data.map { "\($0.count) bytes" } ?? "none" }
        return "\(recordID): ancestor \(size(ancestor)), local \(size(local)), server \(size(server))"
    }
}

/// How a shared backend settles a ``RecordConflict``.
public enum MergePolicy: String, Sendable, CaseIterable {
    /// Saves nothing and throws ``StoreError`` `.conflict` with every conflict, for the
    /// app to settle (CloudKit's default).
    case reportConflicts
    /// The saved version stays; the local change is dropped (and reported).
    case serverWins
    /// The local version replaces the saved one.
    case localWins
    /// Field by field: a field changed on one side only takes that side's value; one
    /// changed on both takes the later change's, by hybrid logical clock. A deletion
    /// counts as a change of every field.
    case fieldLastWriterWins
}
