@_spi(Journal) import AppSandbox
import Foundation
import Locking

/// The blob store's files and the changes its journal holds that are not yet filed:
/// everything the journal's queue needs, so that a checkpoint never holds the
/// ``BlobStore`` itself (whose last release closes the journal, waiting for that queue).
///
/// A change becomes durable in the journal first. Then ``apply(_:ticket:)`` writes the
/// blob's file without `fsync` (so the books' readers of ``BlobStore/url(forKey:)`` see
/// it at once) and keeps the change in ``Pending`` until a checkpoint has written the
/// file again, durably, and started a fresh journal (``file(_:)``). Reads of a pending
/// key come from memory, never from a file a crash could have torn.
final class BlobFiles: Sendable {
    let directory: SandboxDirectory
    let folder: String?
    let cache: MemoryCache<String, Data>
    /// The journal's name in ``directory``: excluded from the keys when the blobs share
    /// that folder.
    let journalName: String

    struct Entry {
        /// The journal ticket of the change.
        var ticket: Journal.Ticket
        /// The new bytes; `nil` for a removal.
        var data: Data?
        /// Whether the file already shows the change (written, or removed, without `fsync`).
        var onFile: Bool
    }

    struct Pending {
        var entries: [String: Entry] = [:]
        /// Every durable change up to this ticket is filed durably: a change at or
        /// before it that arrives late must not shadow a newer file.
        var filedThrough: Journal.Ticket = 0
        /// Counts changes to ``entries`` and filings, so a read that went to disk caches
        /// what it read only if nothing changed meanwhile.
        var generation: UInt64 = 0
        var checkpointQueued = false
        /// Cutting a failed record off the journal failed: the next change asks again
        /// first. Each record is a whole change, so none depends on one cut off.
        var cutBackOwed = false
        /// The journal held changes at start-up that could not be filed then: they are
        /// in ``entries``, and the next checkpoint files them.
        var unfiledSinceStart = false
    }

    let pending = Locked(Pending())
    /// Serialises every change to a file (a write after the journal, a filing), so an
    /// older change never lands on top of a newer one.
    private let fileChanges = Locked(())

    init(directory: SandboxDirectory, folder: String?, cache: MemoryCache<String, Data>) {
        self.directory = directory
        self.folder = folder
        self.cache = cache
        journalName = Journal.name(besides: folder ?? "")
    }

    func path(forKey key: String) -> String { folder.map { "\($0)/\(key)" } ?? key }

    /// Whether `name`, listed in the blobs' folder, is the journal or a file it keeps
    /// aside rather than a blob (only when the blobs share the journal's folder).
    func isJournalFile(_ name: String) -> Bool {
        folder == nil && (name == journalName || name.hasPrefix(journalName + "."))
    }

    /// Whether a failed record may still be whole in the journal (see ``Pending``).
    var owesCutBack: Bool {
        get { pending.withLock { $0.cutBackOwed } }
        set { pending.withLock { $0.cutBackOwed = newValue } }
    }

    // MARK: After the journal

    /// Shows a durable change in the files and in memory, unless a newer change to the
    /// key is already there. A file that cannot be written now keeps the bytes in
    /// memory; the next checkpoint writes it.
    func apply(_ change: BlobChange, ticket: Journal.Ticket) {
        fileChanges.withLock { _ in
            let isNewest = pending.withLock { pending in
                ticket > max(pending.filedThrough, pending.entries[change.key]?.ticket ?? 0)
            }
            guard isNewest else { return }
            let onFile: Bool
            do throws(SandboxError) {
                let path = path(forKey: change.key)
                if let data = change.data {
                    try directory.writeUnsynchronized(data, to: path)
                } else {
                    try directory.removeItem(path)
                }
                onFile = true
            } catch {
                onFile = error.code == .noSuchFile && change.data == nil
            }
            pending.withLock { pending in
                pending.entries[change.key] = Entry(ticket: ticket, data: change.data, onFile: onFile)
                pending.generation &+= 1
            }
            show(change.data, forKey: change.key)
        }
    }

    /// Puts `data` in the cache for `key`, or takes the key out. Called holding
    /// `fileChanges`, which orders the cache's changes as the files'; never holding
    /// `pending`, as the cache's eviction handler may read the store.
    private func show(_ data: Data?, forKey key: String) {
        if let data {
            cache.setObject(data, forKey: key, cost: data.count)
        } else {
            cache.removeObject(forKey: key)
        }
    }

    /// Holds the journal's `records`, which could not be filed at start-up, as pending
    /// changes: reads find them in memory until a checkpoint files them.
    func holdUnfiled(_ records: [Journal.Record]) {
        pending.withLock { pending in
            for record in records {
                guard let change = BlobChange(decoding: record.payload) else { continue }
                pending.entries[change.key] = Entry(ticket: record.ticket, data: change.data, onFile: false)
            }
            pending.unfiledSinceStart = true
            pending.generation &+= 1
        }
    }

    /// Whether changes the journal held at start-up still wait for their files.
    var holdsUnfiled: Bool { pending.withLock { $0.unfiledSinceStart } }

    // MARK: Reads

    /// The blob under `key`: a pending change, the cache, else the file (then cached).
    func data(forKey key: String) throws(SandboxError) -> Data? {
        enum Lookup {
            case found(Data?)
            case onDisk(generation: UInt64)
        }
        let lookup = pending.withLock { pending -> Lookup in
            if let entry = pending.entries[key] { return .found(entry.data) }
            if let cached = cache.object(forKey: key) { return .found(cached) }
            return .onDisk(generation: pending.generation)
        }
        switch lookup {
        case .found(let data): return data
        case .onDisk(let generation): return try readFile(key, caching: generation)
        }
    }

    private func readFile(_ key: String, caching generation: UInt64) throws(SandboxError) -> Data? {
        let data: Data
        do throws(SandboxError) {
            data = try directory.contents(of: path(forKey: key))
        } catch .noSuchFile {
            return nil
        }
        fileChanges.withLock { _ in
            // A change or a filing meanwhile may have made what was read stale.
            if pending.withLock({ $0.generation }) == generation { show(data, forKey: key) }
        }
        return data
    }

    func contains(key: String) -> Bool {
        let known = pending.withLock { pending -> Bool? in
            if let entry = pending.entries[key] { return entry.data != nil }
            return cache.object(forKey: key) != nil ? true : nil
        }
        return known ?? directory.fileExists(path(forKey: key))
    }

    /// Whether the file of `key` lags behind its durable change.
    func needsFiling(_ key: String) -> Bool {
        pending.withLock { $0.entries[key].map { !$0.onFile } ?? false }
    }

    /// Every key, sorted. The pending changes are read before the folder: a filing
    /// between the two only makes the folder show what those changes already say.
    func allKeys() throws(SandboxError) -> [String] {
        let entries = pending.withLock { $0.entries }
        var keys = Set(try directory.contentsOfDirectory(folder).filter { !isJournalFile($0) })
        for (key, entry) in entries {
            if entry.data == nil {
                keys.remove(key)
            } else {
                keys.insert(key)
            }
        }
        return keys.sorted()
    }

    // MARK: Checkpoint

    /// Writes what `records` (the journal's durable records) lead to, durably: the
    /// newest change of each key, unless a newer one (in the journal after this
    /// checkpoint) is already applied. Then forgets the pending changes they cover.
    /// Runs on the journal's queue, holding `fileChanges` throughout: a change applied
    /// meanwhile would otherwise land, unsynced, on a file just written durably, and
    /// be all that is left of it once the journal restarts.
    ///
    /// A record that does not decode, or whose file can never be written there (a
    /// folder or a FIFO took its name), is kept aside beside the journal and reported,
    /// so that one bad record does not hold back every checkpoint after it.
    func file(_ records: [Journal.Record]) throws(SandboxError) {
        try fileChanges.withLock { _ throws(SandboxError) in
            var newest: [String: (record: Journal.Record, data: Data?)] = [:]
            for record in records {
                guard let change = BlobChange(decoding: record.payload) else {
                    try keepAside(record, "it is not a blob change")
                    continue
                }
                newest[change.key] = (record, change.data)
            }
            var filed: [String: Data?] = [:]
            if !newest.isEmpty {
                // A folder removed behind the store's back is made again: the journal
                // holds photos that belong in it.
                if let folder { try directory.createDirectory(folder) }
                for (key, latest) in newest {
                    let superseded = pending.withLock { ($0.entries[key]?.ticket ?? 0) > latest.record.ticket }
                    guard !superseded else { continue }
                    do throws(SandboxError) {
                        try write(latest.data, forKey: key)
                        filed[key] = .some(latest.data)
                    } catch  where Self.neverWritable.contains(error.code) {
                        try keepAside(latest.record, "its file cannot be written: \(error)")
                    }
                }
                // Removals are changes of the folder: durable once it is synced.
                try directory.synchronizeFolder(folder)
            }
            let through = records.last?.ticket ?? 0
            pending.withLock { pending in
                pending.filedThrough = max(pending.filedThrough, through)
                pending.entries = pending.entries.filter { $0.value.ticket > through }
                pending.unfiledSinceStart = false
                pending.generation &+= 1
            }
            // A change filed before its own apply ran, or a read of the file before
            // it was written, may have left something older in the cache.
            for (key, data) in filed { show(data, forKey: key) }
        }
    }

    /// Errors that writing again will not cure.
    private static let neverWritable: Set<SandboxError.Code> = [
        .isADirectory, .notRegularFile, .outsideContainer, .tooManySymbolicLinks, .notADirectory,
    ]

    private func write(_ data: Data?, forKey key: String) throws(SandboxError) {
        if let data {
            try directory.write(data, to: path(forKey: key))
        } else {
            do throws(SandboxError) {
                try directory.removeItem(path(forKey: key))
            } catch .noSuchFile {
                // Already gone.
            }
        }
    }

    /// Claims the one checkpoint the store queues by itself; `false` when it is queued.
    func claimBackgroundCheckpoint() -> Bool {
        pending.withLock { pending in
            defer { pending.checkpointQueued = true }
            return !pending.checkpointQueued
        }
    }

    /// ``file(_:)`` for the checkpoint the store queued by itself: no one waits for
    /// it, so a failure is reported here, and the next one may be queued.
    func fileInBackground(_ records: [Journal.Record]) throws(SandboxError) {
        defer { pending.withLock { $0.checkpointQueued = false } }
        do throws(SandboxError) {
            try file(records)
        } catch {
            StandardStream.error.report("BlobStore: writing the files to shorten the journal failed: \(error)")
            throw error
        }
    }

    private func keepAside(_ record: Journal.Record, _ why: String) throws(SandboxError) {
        let aside = "\(journalName).damaged-\(Int(Date().timeIntervalSince1970))-record-\(record.ticket)"
        try directory.replaceRegularFile(record.payload, at: aside)
        StandardStream.error.report("BlobStore: record \(record.ticket) of \(journalName) is kept as \(aside): \(why)")
    }
}
