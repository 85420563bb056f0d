public import Foundation

/// What ``Journal/open(_:in:lockTimeout:following:)`` found in the journal it opened.
@_spi(Journal) public struct JournalRecovery: Sendable, Equatable {
    /// The records to apply on top of the checkpoint, in order.
    public var records: [Data] = []
    /// Their tickets (``Journal/append(_:)`` gave each): increasing within a journal,
    /// and from a start no journal before it used (see ``Journal/open(_:in:lockTimeout:following:)``).
    public var tickets: [Journal.Ticket] = []
    /// Bytes of a torn last record (a write a crash cut short), cut off.
    public var tornBytes = 0
    /// Files beside the journal holding damaged bytes that whole records followed, or
    /// a journal whose header was damaged: kept for inspection, never replayed.
    public var keptAside: [String] = []
    /// Records of a journal that named an older checkpoint: a crash came between
    /// writing the checkpoint, which holds them, and starting the next journal.
    public var supersededRecords = 0
}

extension Journal {
    /// Opens the journal `name` in `directory` and returns it with the records to
    /// replay on the checkpoint.
    ///
    /// First takes the journal's lock (waiting at most `lockTimeout` for another
    /// journal on the file, in this process or another, to close), then calls
    /// `checkpoint`, which reads the store's own file and returns its digest
    /// (``CheckpointDigest/none`` when there is none yet): read under the lock, the
    /// checkpoint cannot change before the journal is read.
    ///
    /// - A missing journal is created.
    /// - A torn last record is cut off.
    /// - Damaged bytes followed by whole records are copied to a file beside the
    ///   journal (``JournalRecovery/keptAside``) and left out of it; the records after
    ///   them are replayed.
    /// - A journal naming another checkpoint was folded into the current one before a
    ///   crash: it is replaced by an empty one.
    /// - A header with one damaged copy is written again from the other; a journal
    ///   of the 0.2.0 format is rewritten in this one.
    /// - A header damaged in both copies with no record after it is kept aside, and an
    ///   empty journal started. With records after it, opening fails: which checkpoint
    ///   they follow cannot be told, and an empty store would hide them.
    ///
    /// Each of these is reported in one line on standard error.
    /// - Throws: what `checkpoint` throws, as it is; otherwise ``SandboxError``: when
    ///   the journal cannot be read, repaired or created, `.timedOut` when another
    ///   journal keeps the lock, `.damagedJournal` for a header damaged beyond repair
    ///   with records after it (the file is left as it is).
    public static func open(
        _ name: String, in directory: SandboxDirectory, lockTimeout: Duration = .zero,
        following checkpoint: () throws -> CheckpointDigest
    ) throws -> (Journal, JournalRecovery) {
        try directory.create()
        let lock = try JournalFile.lock(name, in: directory, timeout: lockTimeout)
        do {
            return try open(name, in: directory, following: try checkpoint(), holding: lock)
        } catch {
            try? directory.container.system.close(lock)
            throw error
        }
    }

    private static func open(
        _ name: String, in directory: SandboxDirectory, following checkpoint: CheckpointDigest, holding lock: Int32
    ) throws(SandboxError) -> (Journal, JournalRecovery) {
        var recovery = JournalRecovery()
        var handle: AppendingFile?
        var length = JournalFormat.headerSize
        // A journal that starts empty numbers its records from a random point: one after
        // it, of an archive with the same bytes, must not pass for it by its tickets.
        var lastTicket = Journal.Ticket.random(in: 1...(1 << 48))
        if let existing = try directory.regularFileContents(name) {
            let bytes = [UInt8](existing)
            let scan = JournalFormat.scan(bytes)
            let path = directory.url.appendingPathComponent(name).path
            switch scan.checkpoint {
            case nil where !scan.records.isEmpty:
                throw SandboxError(
                    .damagedJournal,
                    "the journal's header is damaged in both copies, so its \(scan.records.count) records cannot be "
                        + "matched to the checkpoint; nothing was changed. To start without them, move the journal "
                        + "aside: mv '\(path)' '\(path).damaged'",
                    path: path)
            case nil:
                let aside = asideName(name, "header")
                try directory.moveItem(name, to: aside)
                recovery.keptAside.append(aside)
                StandardStream.error.report(
                    "Journal \(path): the header is damaged and no record follows it; the file is kept as \(aside)")
            case let named? where named != checkpoint:
                recovery.supersededRecords = scan.records.count
                StandardStream.error.report(
                    "Journal \(path): \(scan.records.count) records already in the checkpoint (\(checkpoint)); starting afresh"
                )
            case _?:
                recovery.records = scan.records.map(\.payload)
                recovery.tickets = scan.records.map(\.sequence)
                lastTicket = scan.records.last?.sequence ?? lastTicket
                length = scan.end
                for range in scan.corrupt {
                    let aside = asideName(name, "\(range.lowerBound)")
                    try directory.replaceRegularFile(Data(bytes[range]), at: aside)
                    recovery.keptAside.append(aside)
                    StandardStream.error.report(
                        "Journal \(path): \(range.count) damaged bytes at offset \(range.lowerBound), "
                            + "followed by whole records, are kept as \(aside); the records after them are replayed")
                }
                if scan.corrupt.isEmpty, scan.end < bytes.count {
                    recovery.tornBytes = bytes.count - scan.end
                    StandardStream.error.report(
                        "Journal \(path): a torn last record (\(recovery.tornBytes) bytes) is dropped; "
                            + "\(scan.records.count) records are replayed")
                }
                if scan.header == .repaired {
                    StandardStream.error.report(
                        "Journal \(path): one copy of the header is damaged; the other names the checkpoint, and "
                            + "\(scan.records.count) records are replayed; the header is written again")
                }
                let rewrites = !scan.corrupt.isEmpty || scan.header != .intact
                if rewrites {
                    // Only whole records, after a header of this format in two good copies.
                    var kept = JournalFormat.header(following: checkpoint)
                    for record in scan.records { kept.append(contentsOf: bytes[record.range]) }
                    try directory.replaceRegularFile(Data(kept), at: name)
                    length = kept.count
                }
                handle = try directory.openForAppending(name)
                if recovery.tornBytes > 0, !rewrites { try handle?.truncate(to: length) }
            }
        }
        let file: AppendingFile
        if let handle {
            file = handle
        } else {
            file = try JournalFile.create(name, in: directory, following: checkpoint)
        }
        return (
            Journal(
                name: name, directory: directory,
                file: JournalFile(directory: directory, name: name, lock: lock, handle: file, length: length),
                lastTicket: lastTicket, checkpoint: checkpoint),
            recovery
        )
    }

    /// Whether a journal keeps the lock of the journal `name` in `directory` now, in
    /// this process or another; a missing one is not open.
    package static func isOpen(_ name: String, in directory: SandboxDirectory) -> Bool {
        (try? directory.withExistingResolver { resolver throws(SandboxError) in
            LockFile.isHeld(directory.container.system, parent: resolver.root, name: LockFile.name(for: name))
        }) ?? false
    }

    private static func asideName(_ name: String, _ what: String) -> String {
        "\(name).damaged-\(Int(Date().timeIntervalSince1970))-\(what)"
    }
}
