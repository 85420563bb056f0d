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
        guard
            let root = try KeyedUnarchiver.unarchivedTopLevelObjects(from: archive)
                .first(where: { $0.key == "root" })?.value as? ArchivedObject
        else {
            throw KeyedArchiveError(.typeMismatch, "the item's archive has no object at its root")
        }
        self.root = root
        var values: [String: Data] = [:]
        for (key, value) in root.fields {
            values[key] = try KeyedArchiver.archivedData(
                withRootObject: ArchivedObject(className: "Field", fields: [(key, value)]))
        }
        self.values = values
    }

    /// The names of the fields whose values differ between `self` and `other`.
    func changedFields(to other: ArchivedFields) -> Set<String> {
        Set(values.keys).union(other.values.keys).filter { values[$0] != other.values[$0] }
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
                archive: local, position: position,
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
        for field in try ArchivedFields(previous).changedFields(to: ArchivedFields(local)) {
            stamps.fields[field] = stamp
        }
        if position != ancestor.position { stamps.fields[FieldStamps.positionField] = stamp }
        return stamps
    }

    private static func mergeFields(
        ancestor: SharedItemRecord?, local: Data?, position: Double, server: SharedItemRecord,
        stamp: HybridTimestamp
    ) throws -> RecordResolution {
        // A deletion on either side is a change of the whole record at its time.
        guard let local, let serverArchive = server.archive else {
            let localIsLater = stamp > server.stamps.latest
            if local == nil && server.isDeleted { return .keepServer }
            return localIsLater
                ? .write(archive: local, position: position, stamps: FieldStamps(record: stamp)) : .keepServer
        }
        let mine = try ArchivedFields(local)
        let theirs = try ArchivedFields(serverArchive)
        let base = try ancestor?.archive.map(ArchivedFields.init)
        var fields = theirs.root.fields
        var stamps = server.stamps
        var changed = false
        let names = theirs.root.fields.map(\.key) + mine.root.fields.map(\.key).filter { theirs.values[$0] == nil }
        for name in names {
            let localChanged = mine.values[name] != base?.values[name] || base == nil
            let serverChanged = theirs.values[name] != base?.values[name] || base == nil
            guard localChanged, mine.values[name] != theirs.values[name] else { continue }
            guard !serverChanged || stamp > server.stamps.stamp(of: name) else { continue }
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
            server.position == ancestor.position || stamp > server.stamps.stamp(of: positionField)
        {
            mergedPosition = position
            stamps.fields[positionField] = stamp
            changed = true
        }
        guard changed else { return .keepServer }
        let merged = ArchivedObject(
            className: theirs.root.className, classChain: theirs.root.classChain, fields: fields)
        return .write(
            archive: try KeyedArchiver.archivedData(withRootObject: merged), position: mergedPosition, stamps: stamps)
    }
}
