import Foundation
import KeyedArchive
import PostgresNIO
import PropertyList

/// What a row read from the database must be before it touches local state. Anyone
/// with the database's URL can write rows, so each is held to the limits of local
/// input: a timestamp a clock may take in (``HybridTimestamp/problem(readAt:)``), a
/// value that reads as a property list, an archive that reads as one with an object
/// at its root, field stamps that parse. A row that fails is skipped and quarantined
/// (``RowQuarantine``), never thrown: one bad row must not stall the rows after it.
struct RowCheck {
    /// The reader's clock, in milliseconds since 1970, when the rows were read.
    let now: Int64

    init(now: Int64 = HybridLogicalClock.wallClock()) {
        self.now = now
    }

    /// The most field stamps text parsed: a few hundred fields take a few kilobytes.
    static let maximumFieldStampBytes = 64 << 10
    /// The longest item id read, in bytes of UTF-8 (a UUID's text takes 36).
    static let maximumRecordIDBytes = 1_024

    /// The change a key-value row holds, or why it cannot be taken in.
    func keyValueChange(key: String, value: ByteBuffer?, stamp: HybridTimestamp) -> Result<KeyValueChange, RowProblem> {
        if let problem = stamp.problem(readAt: now) { return .failure(RowProblem(problem)) }
        guard let value else { return .success(KeyValueChange(key: key, value: nil, timestamp: stamp)) }
        do {
            let decoded = try PropertyListReader().read(Array(value.readableBytesView))
            return .success(KeyValueChange(key: key, value: decoded, timestamp: stamp))
        } catch {
            return .failure(RowProblem("the value is not a property list: \(error)"))
        }
    }

    /// The record an item row holds, or why it cannot be taken in.
    func itemRecord(
        id: String, changeTag: Int64, position: Double, archive: ByteBuffer?, stamp: HybridTimestamp,
        fieldStamps: String?
    ) -> Result<SharedItemRecord, RowProblem> {
        guard !id.isEmpty, id.utf8.count <= Self.maximumRecordIDBytes else {
            return .failure(
                RowProblem("the record id has \(id.utf8.count) bytes, not 1 to \(Self.maximumRecordIDBytes)"))
        }
        // The tags' sequence starts at 1; a replica subtracts one from a tag it holds.
        guard changeTag > 0 else { return .failure(RowProblem("the change tag \(changeTag) is not one a save gives")) }
        guard position.isFinite else { return .failure(RowProblem("the position \(position) is not a finite number")) }
        if let problem = stamp.problem(readAt: now) { return .failure(RowProblem(problem)) }
        let stamps: FieldStamps
        switch self.fieldStamps(fieldStamps, record: stamp) {
        case .success(let parsed): stamps = parsed
        case .failure(let problem): return .failure(problem)
        }
        let data = archive.map { Data($0.readableBytesView) }
        if let data {
            do {
                _ = try ArchivedFields.root(of: data)
            } catch {
                return .failure(RowProblem("the archive cannot be read: \(error)"))
            }
        }
        return .success(
            SharedItemRecord(id: id, changeTag: changeTag, position: position, archive: data, stamps: stamps))
    }

    private func fieldStamps(_ text: String?, record: HybridTimestamp) -> Result<FieldStamps, RowProblem> {
        guard let text else { return .success(FieldStamps(record: record)) }
        guard text.utf8.count <= Self.maximumFieldStampBytes else {
            return .failure(
                RowProblem("the field stamps take \(text.utf8.count) bytes, more than \(Self.maximumFieldStampBytes)"))
        }
        let stamps: FieldStamps
        do {
            stamps = try FieldStamps(record: record, encodedFields: text)
        } catch {
            return .failure(RowProblem("the field stamps are not a JSON object of timestamps: \(error)"))
        }
        for (field, stamp) in stamps.fields.sorted(by: { $0.key < $1.key }) {
            if let problem = stamp.problem(readAt: now) {
                return .failure(RowProblem("field \(field.prefix(64)): \(problem)"))
            }
        }
        return .success(stamps)
    }
}

/// Why a row read from the database cannot be taken in.
struct RowProblem: Error, Equatable {
    var reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}
