import Foundation

/// One item as the shared table holds it.
struct SharedItemRecord: Sendable, Equatable, Codable {
    /// The item's `Identifiable.id`, as text.
    var id: String
    /// The server change tag: the number of the save that wrote this version, larger
    /// for every later save of the store.
    var changeTag: Int64
    /// Where the item sorts in the store's order.
    var position: Double
    /// The item's keyed archive; `nil` once it was deleted (the row stays, so that a
    /// replica that had it learns of the deletion).
    var archive: Data?
    /// When each field was last written, for field-by-field merges.
    var stamps: FieldStamps

    var isDeleted: Bool { archive == nil }
}

/// When the fields of one record were last written: a field's own time if a save
/// changed it alone, else the time of the save that wrote the whole record.
struct FieldStamps: Sendable, Equatable, Codable {
    /// The save that created the record, or that deleted it.
    var record: HybridTimestamp
    /// Fields changed since, by name; ``positionField`` for the order.
    var fields: [String: HybridTimestamp] = [:]

    /// The name under which a change of position is stamped and merged.
    static let positionField = "$position"

    func stamp(of field: String) -> HybridTimestamp { fields[field] ?? record }

    /// The latest write to any part of the record.
    var latest: HybridTimestamp { fields.values.reduce(record, max) }

    /// The latest write to the item itself: a move alone is not one.
    var latestEdit: HybridTimestamp {
        fields.reduce(record) { latest, field in field.key == Self.positionField ? latest : max(latest, field.value) }
    }

    /// ``fields`` as stored in the table: `nil` when there are none, as for most rows,
    /// which then need no parsing.
    func encodedFields() -> String? {
        guard !fields.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding strings and integers cannot fail.
        return String(decoding: (try? encoder.encode(fields)) ?? Data(), as: UTF8.self)
    }

    init(record: HybridTimestamp, fields: [String: HybridTimestamp] = [:]) {
        self.record = record
        self.fields = fields
    }

    init(record: HybridTimestamp, encodedFields: String?) throws {
        self.record = record
        fields =
            try encodedFields.map { try JSONDecoder().decode([String: HybridTimestamp].self, from: Data($0.utf8)) }
            ?? [:]
    }
}
