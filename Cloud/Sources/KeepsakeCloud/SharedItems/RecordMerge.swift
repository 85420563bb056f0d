import AppStores
import Foundation
import KeyedArchive

/// An item's fields, read from its keyed archive without knowing its type, so that
/// two versions can be compared and merged field by field.
struct ArchivedFields {
    let root: ArchivedObject
    /// Each field's value archived on its own: equal bytes, equal values.
    let values: [String: Data]

    init(_ archive: Data) throws {
        let root = try Self.root(of: archive)
        self.root = root
        var values: [String: Data] = [:]
        for (key, value) in root.fields {
            values[key] = try KeyedArchiver.archivedData(
                withRootObject: ArchivedObject(className: "Field", fields: [(key, value)]))
        }
        self.values = values
    }

    /// The object at the root of an item's archive.
    /// - Throws: ``KeyedArchiveError`` when the bytes are no keyed archive, or hold no
    ///   object at the root.
    static func root(of archive: Data) throws -> ArchivedObject {
        guard
            let root = try KeyedUnarchiver.unarchivedTopLevelObjects(from: archive)
                .first(where: { $0.key == "root" })?.value as? ArchivedObject
        else {
            throw KeyedArchiveError(.typeMismatch, "the item's archive has no object at its root")
        }
        return root
    }

    /// The names of the fields `local` sets to values other than `self`'s. A field
    /// `local` lacks is none of them: a model writes `nil` as a reference to `$null`,
    /// its key present (as Foundation does), so a key missing is one the model that
    /// wrote `local` does not know (an older version of the app, in a rolling upgrade).
    /// Merges keep such a field as the row has it.
    func fieldsChanged(by local: ArchivedFields) -> Set<String> {
        Set(local.values.keys.filter { values[$0] != local.values[$0] })
    }

    /// `local` with the fields it lacks taken from `row`, in `row`'s order after its own:
    /// `local` whole, as a policy that takes it whole writes it, losing nothing its
    /// model does not know.
    static func keepingUnknownFields(of row: Data?, in local: Data) throws -> Data {
        guard let row else { return local }
        let mine = try root(of: local)
        let known = Set(mine.fields.map(\.key))
        let unknown = try root(of: row).fields.filter { !known.contains($0.key) }
        guard !unknown.isEmpty else { return local }
        return try KeyedArchiver.archivedData(
            withRootObject: ArchivedObject(
                className: mine.className, classChain: mine.classChain, fields: mine.fields + unknown))
    }
}

/// What a save does with one record changed both here and on the server.
enum RecordResolution: Equatable {
    /// Leave the server's version.
    case keepServer
    /// Write this version (an archive of `nil` deletes the record).
    case write(archive: Data?, position: Double, stamps: FieldStamps)
}

/// Settles conflicts by a ``MergePolicy``.
enum RecordMerge {
    /// The version to save for `id` when it changed here (to `local`, `nil` if deleted,
    /// at `position`) and on the server since `ancestor`.
    static func resolve(
        ancestor: SharedItemRecord?, local: Data?, position: Double, server: SharedItemRecord,
        stamp: HybridTimestamp, policy: MergePolicy
    ) throws -> RecordResolution {
        switch policy {
        case .reportConflicts, .serverWins:
            return .keepServer
        case .localWins:
            return .write(
                archive: try local.map { try ArchivedFields.keepingUnknownFields(of: server.archive, in: $0) },
                position: position,
                stamps: try stamps(ancestor: ancestor, local: local, position: position, stamp: stamp, onto: server))
        case .fieldLastWriterWins:
            return try mergeFields(
                ancestor: ancestor, local: local, position: position, server: server, stamp: stamp)
        }
    }

    /// The stamps of a version written at `stamp`: the fields changed since `ancestor`
    /// take `stamp`, the others keep `onto`'s (the server's, or the ancestor's).
    static func stamps(
        ancestor: SharedItemRecord?, local: Data?, position: Double, stamp: HybridTimestamp,
        onto: SharedItemRecord?
    ) throws -> FieldStamps {
        guard let local, let ancestor, let previous = ancestor.archive, let onto, !onto.isDeleted else {
            return FieldStamps(record: stamp)
        }
        var stamps = onto.stamps
        for field in try ArchivedFields(previous).fieldsChanged(by: ArchivedFields(local)) {
            stamps.fields[field] = stamp
        }
        if position != ancestor.position { stamps.fields[FieldStamps.positionField] = stamp }
        return stamps
    }

    /// `local`'s changes since `ancestor` put onto `current`, a version no one else
    /// wrote (a merge saved from here that memory has not loaded): every field changed
    /// here takes its local value, the others stay as `current` has them.
    static func apply(
        ancestor: SharedItemRecord, local: Data?, position: Double, stamp: HybridTimestamp,
        onto current: SharedItemRecord
    ) throws -> (archive: Data?, position: Double, stamps: FieldStamps) {
        guard let local, current.archive != nil, ancestor.archive != nil else {
            return (local, position, FieldStamps(record: stamp))
        }
        let merged = try combine(
            ancestor: ancestor, local: local, position: position, onto: current, stamp: stamp,
            takesLocal: { _ in true })
        return merged ?? (current.archive, current.position, current.stamps)
    }

    private static func mergeFields(
        ancestor: SharedItemRecord?, local: Data?, position: Double, server: SharedItemRecord,
        stamp: HybridTimestamp
    ) throws -> RecordResolution {
        // A deletion on either side is a change of the whole record at its time, which
        // an edit made later undoes. A move alone is no edit: it neither brings back an
        // item deleted elsewhere nor keeps one deleted here, however late it came (a
        // replica places the rows it takes in, and a deletion offered while the database
        // was away keeps that earlier time).
        guard let local, server.archive != nil else {
            if local == nil && server.isDeleted { return .keepServer }
            if server.isDeleted, let ancestor, local == ancestor.archive { return .keepServer }
            let rival = local == nil ? server.stamps.latestEdit : server.stamps.latest
            return stamp > rival
                ? .write(archive: local, position: position, stamps: FieldStamps(record: stamp)) : .keepServer
        }
        // A field changed on both sides goes to the later change.
        let merged = try combine(
            ancestor: ancestor, local: local, position: position, onto: server, stamp: stamp,
            takesLocal: { field in field.serverChanged ? stamp > server.stamps.stamp(of: field.name) : true })
        guard let merged else { return .keepServer }
        return .write(archive: merged.archive, position: merged.position, stamps: merged.stamps)
    }

    /// `server`'s version with the fields `local` changed since `ancestor` (all of them
    /// when there is no ancestor) where `takesLocal` accepts them; `nil` when none is.
    private static func combine(
        ancestor: SharedItemRecord?, local: Data, position: Double, onto server: SharedItemRecord,
        stamp: HybridTimestamp, takesLocal: (_ field: (name: String, serverChanged: Bool)) -> Bool
    ) throws -> (archive: Data, position: Double, stamps: FieldStamps)? {
        guard let serverArchive = server.archive else { return nil }
        let mine = try ArchivedFields(local)
        let theirs = try ArchivedFields(serverArchive)
        let base = try ancestor?.archive.map(ArchivedFields.init)
        var fields = theirs.root.fields
        var stamps = server.stamps
        var changed = false
        let names = theirs.root.fields.map(\.key) + mine.root.fields.map(\.key).filter { theirs.values[$0] == nil }
        for name in names {
            // A field `local` lacks is one its model does not know: no change (see
            // ``ArchivedFields/fieldsChanged(by:)``).
            guard mine.values[name] != nil else { continue }
            let localChanged = base == nil || mine.values[name] != base?.values[name]
            let serverChanged = base == nil || theirs.values[name] != base?.values[name]
            guard localChanged, mine.values[name] != theirs.values[name], takesLocal((name, serverChanged)) else {
                continue
            }
            let value = mine.root.fields.first(where: { $0.key == name })?.value
            if let index = fields.firstIndex(where: { $0.key == name }) {
                fields[index].value = value
            } else {
                fields.append((name, value))
            }
            stamps.fields[name] = stamp
            changed = true
        }
        var mergedPosition = server.position
        let positionField = FieldStamps.positionField
        if let ancestor, position != ancestor.position, position != server.position,
            takesLocal((positionField, server.position != ancestor.position))
        {
            mergedPosition = position
            stamps.fields[positionField] = stamp
            changed = true
        }
        guard changed else { return nil }
        let merged = ArchivedObject(
            className: theirs.root.className, classChain: theirs.root.classChain, fields: fields)
        return (try KeyedArchiver.archivedData(withRootObject: merged), mergedPosition, stamps)
    }
}
