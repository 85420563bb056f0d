@_spi(Journal) import AppSandbox
import AppStores
import Foundation

/// What a shared item store last agreed with the database, kept in the container
/// (`shared-items.agreement` and its journal in `Library/Application Support/`), so
/// that after a restart the changes made meanwhile are pushed, and merged, as changes
/// from it.
///
/// The file holds the whole agreement as of its last checkpoint; the journal holds
/// each change since, item by item, so that keeping the agreement costs the change,
/// not the store. While a merge taken from the database is on its way into the item
/// store, the journal holds the merge as well: the agreement is kept before the store
/// gets the merge, so that the store never holds a version the agreement does not
/// know, and a start after a stop between the two does the merge again
/// (``MergedItem/isMissing(from:)``) instead of pushing the old versions as changes.
///
/// Beside it, the cursor: where in the item store's journal the last change pushed sits
/// (``ItemStore/changes(after:)``), so that a start pushes the changes after it.
final class AgreementLog: Sendable {
    /// One item of a merge taken from the database.
    struct MergedItem: Codable, Sendable, Equatable {
        /// The item's id.
        var key: String
        /// Its archive in the item store before the merge; nil when it was not there.
        var before: Data?
        /// Its archive after; nil when the merge removes it.
        var after: Data?
    }

    /// What the file and the journal hold, as read at start-up.
    struct Contents {
        /// The backend's whole agreement as of the checkpoint; nil when there is none.
        var agreement: Data?
        /// The changes of it since, in order.
        var changes: [Data] = []
        /// A merge not known to have reached the item store.
        var merge: [MergedItem] = []
        /// The item store's position through which every change was pushed.
        var cursor: JournalPosition?
        /// Why what was kept could not be read, when it could not: it is then dropped,
        /// and the changes made here are pushed as changes from nothing, merged with
        /// what the database holds.
        var problem: String?
    }

    /// The file as earlier versions wrote it whole each time, and as a checkpoint writes it now.
    private struct File: Codable {
        var agreement: Data
        var merge: [MergedItem] = []
        var cursor: JournalPosition?
    }

    /// One journal record: a change of the agreement, where a merge stands (the merge
    /// under way, or an empty one once the item store has it), and the cursor, when
    /// it moved.
    private struct Record: Codable {
        var change: Data?
        var merge: [MergedItem]?
        var cursor: JournalPosition?
    }

    private let journal: Journal
    private let directory: SandboxDirectory
    private let fileName: String

    private init(journal: Journal, directory: SandboxDirectory, fileName: String) {
        self.journal = journal
        self.directory = directory
        self.fileName = fileName
    }

    deinit { journal.close() }

    /// Opens the agreement `fileName` in `directory`, and its journal.
    /// - Throws: ``SandboxError`` when they cannot be read or the journal is held by
    ///   another process.
    static func open(_ fileName: String, in directory: SandboxDirectory) throws -> (AgreementLog, Contents) {
        var contents = Contents()
        let (journal, recovery) = try Journal.open(
            Journal.name(besides: fileName), in: directory, lockTimeout: .seconds(2)
        ) {
            let data: Data
            do {
                data = try directory.contents(of: fileName)
            } catch .noSuchFile {
                return .none
            }
            // A file of the backend's agreement alone, as the first versions wrote it.
            let file = (try? JSONDecoder().decode(File.self, from: data)) ?? File(agreement: data)
            contents.agreement = file.agreement
            contents.merge = file.merge
            contents.cursor = file.cursor
            return CheckpointDigest(of: data)
        }
        let log = AgreementLog(journal: journal, directory: directory, fileName: fileName)
        for (index, payload) in recovery.records.enumerated() {
            guard let record = try? JSONDecoder().decode(Record.self, from: payload) else {
                return (log, Contents(problem: "record \(index + 1) of its journal is not a change of it"))
            }
            if let change = record.change { contents.changes.append(change) }
            if let merge = record.merge { contents.merge = merge }
            if let cursor = record.cursor { contents.cursor = cursor }
        }
        return (log, contents)
    }

    /// Appends `change` of the agreement and, when given, the `merge` under way (empty:
    /// the last one reached the item store) and the `cursor`, and returns once they
    /// are durable.
    /// - Throws: ``SandboxError`` of the write or `fsync`.
    func keep(change: Data?, merge: [MergedItem]? = nil, cursor: JournalPosition? = nil) async throws {
        guard change != nil || merge != nil || cursor != nil else { return }
        let ticket = try journal.append(
            try JSONEncoder().encode(Record(change: change, merge: merge, cursor: cursor)))
        try await journal.waitUntilDurable(ticket)
    }

    /// Whether the journal has outgrown the file (and 1 MiB): the moment to write the
    /// whole agreement again, so that a start reads little.
    var wantsCheckpoint: Bool {
        journal.size > max(1 << 20, Int(clamping: journal.checkpointDigest.length))
    }

    /// Writes `agreement`, the whole of it, as the file, durably, and starts an empty
    /// journal after it; `merge` is the one under way, if any, and `cursor` the cursor.
    /// - Throws: ``SandboxError`` of the write; the file and journal are then as before.
    func checkpoint(_ agreement: Data, merge: [MergedItem], cursor: JournalPosition?) async throws {
        try await journal.waitUntilDurable(try queueCheckpoint(agreement, merge: merge, cursor: cursor))
    }

    /// ``checkpoint(_:merge:cursor:)`` that holds the caller's thread until it is
    /// durable: for a start, which reads the whole agreement anyway, before the app
    /// serves anything.
    func checkpointBlocking(_ agreement: Data, merge: [MergedItem], cursor: JournalPosition?) throws {
        try journal.waitUntilDurableBlocking(try queueCheckpoint(agreement, merge: merge, cursor: cursor))
    }

    private func queueCheckpoint(
        _ agreement: Data, merge: [MergedItem], cursor: JournalPosition?
    ) throws -> Journal.Ticket {
        let data = try JSONEncoder().encode(File(agreement: agreement, merge: merge, cursor: cursor))
        let (directory, fileName) = (directory, fileName)
        return journal.checkpoint { () throws(SandboxError) in
            try directory.create()
            try directory.write(data, to: fileName)
            return CheckpointDigest(of: data)
        }
    }
}
