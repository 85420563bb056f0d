import AppRuntime
public import Foundation
import Locking

/// A write-ahead journal: the one place a store's changes become durable.
///
/// A store applies a change in memory, appends a record describing it, and reports it
/// saved only once ``waitUntilDurable(_:)`` returns: the record is then written and
/// `fsync`ed. Records appended while a write is under way go out together in the next
/// one, so concurrent changes share one `fsync` (group commit), and a lone writer pays
/// one `fsync` per change.
///
/// The store's own file (the books' `items.archive`, a preferences plist) is the
/// checkpoint. ``checkpoint(_:)`` runs the store's write of it in the journal's order
/// (after every record appended before, before every record appended after) and then
/// starts an empty journal that names the new checkpoint. At start-up
/// ``open(_:in:lockTimeout:following:)`` hands back the records to replay on top of the checkpoint.
///
/// Writes run one at a time on a serial queue of the journal's own, never on Swift's
/// cooperative pool; ``waitUntilDurable(_:)`` suspends without blocking a thread, and
/// ``waitUntilDurableBlocking(_:)`` is for the books' synchronous calls.
///
/// A failed write or `fsync` fails that batch and every record after it: no record is
/// written after one that may be missing, because replay applies them in order. The
/// store then calls ``discardUndurable()`` (the file is cut back to its last durable
/// record) and reloads, or writes a checkpoint, which starts a fresh journal.
///
/// ```swift
/// let (journal, recovery) = try Journal.open("items.archive.journal", in: documents) { digest(of: archive) }
/// for record in recovery.records { apply(record) }
/// let ticket = try journal.append(Data(record))
/// try await journal.waitUntilDurable(ticket)      // now say "saved"
/// ```
@_spi(Journal) public final class Journal: Sendable {
    /// The number of an appended record or checkpoint, in the journal's order.
    public typealias Ticket = UInt64

    /// The name of the journal kept beside the store file `checkpointName`
    /// (`items.archive.journal`): one convention for every store.
    public static func name(besides checkpointName: String) -> String { checkpointName + ".journal" }

    /// The largest record accepted.
    public static let maxRecordBytes = 256 << 20

    /// The journal's file, relative to ``directory``.
    public let name: String
    public let directory: SandboxDirectory

    /// A durable record, as a filing checkpoint gets it.
    public struct Record: Sendable, Equatable {
        public let ticket: Ticket
        public let payload: Data

        public init(ticket: Ticket, payload: Data) {
            self.ticket = ticket
            self.payload = payload
        }
    }

    private enum Entry {
        case record(Ticket, Data)
        case checkpoint(Ticket, @Sendable () throws(SandboxError) -> CheckpointDigest)
        case filing(Ticket, @Sendable ([Record]) throws(SandboxError) -> Void)
        case discard(Ticket)

        var ticket: Ticket {
            switch self {
            case .record(let ticket, _), .checkpoint(let ticket, _), .filing(let ticket, _), .discard(let ticket):
                ticket
            }
        }
    }

    private struct State {
        var pending: [Entry] = []
        var draining = false
        var nextTicket: Ticket
        /// Every ticket up to this one is done: durable, or listed in `failures`.
        var doneThrough: Ticket
        /// Tickets that failed, with why; few, and merged when adjacent.
        var failures: [(tickets: ClosedRange<Ticket>, error: SandboxError)] = []
        var waiters: [(ticket: Ticket, waiter: Waiter)] = []
        /// Bytes in the journal file, header included.
        var size: Int
        var lastCheckpoint: CheckpointDigest

        func outcome(of ticket: Ticket) -> Result<Void, SandboxError>? {
            guard ticket <= doneThrough else { return nil }
            if let failure = failures.last(where: { $0.tickets.contains(ticket) }) { return .failure(failure.error) }
            return .success(())
        }

        mutating func fail(_ tickets: ClosedRange<Ticket>, _ error: SandboxError) {
            if let last = failures.last, last.tickets.upperBound + 1 == tickets.lowerBound, last.error == error {
                failures[failures.count - 1].tickets = last.tickets.lowerBound...tickets.upperBound
            } else {
                failures.append((tickets, error))
            }
        }
    }

    private let state: Locked<State>
    /// What only the queue touches: the open file and its durable length.
    private let file: JournalFile
    private let queue: SerialIOQueue

    init(name: String, directory: SandboxDirectory, file: JournalFile, lastTicket: Ticket, checkpoint: CheckpointDigest)
    {
        self.name = name
        self.directory = directory
        self.file = file
        queue = SerialIOQueue(label: "keepsake.journal")
        state = Locked(
            State(
                nextTicket: lastTicket + 1, doneThrough: lastTicket, size: file.durableLength,
                lastCheckpoint: checkpoint))
    }

    deinit { file.close() }

    /// Writes what is queued, then closes the file and gives up its lock at once, so
    /// that the journal can be opened again (by a store made anew) before this object
    /// is gone. Appends after this fail.
    public func close() {
        queue.runBlocking {
            drain()
            file.close()
        }
    }

    // MARK: Appending

    /// Queues `payload` for the next write and returns its ticket at once.
    /// - Throws: ``SandboxError`` `.unsupported` for a record over ``maxRecordBytes``.
    public func append(_ payload: Data) throws(SandboxError) -> Ticket {
        guard payload.count <= Self.maxRecordBytes else {
            throw SandboxError(
                .unsupported, "a journal record of \(payload.count) bytes is over \(Self.maxRecordBytes)",
                path: directory.url.appendingPathComponent(name).path)
        }
        return enqueue { .record($0, payload) }
    }

    /// Queues a checkpoint: after every record appended before, `write` stores the
    /// state those records lead to in the store's own file and returns its digest;
    /// the journal then starts afresh, naming it. Records appended after go to the
    /// new journal. A failed `write` fails this ticket only: the old checkpoint and
    /// journal stay, and go on.
    public func checkpoint(_ write: @escaping @Sendable () throws(SandboxError) -> CheckpointDigest) -> Ticket {
        enqueue { .checkpoint($0, write) }
    }

    /// Queues a checkpoint for a store whose checkpoint is not one file but what its
    /// records say, one file per key (photos): after every record appended before,
    /// `file` gets the journal's durable records, and only those, and makes the
    /// store's files hold what they lead to, durably. The journal then starts afresh,
    /// following ``CheckpointDigest/none``. A crash between the two replays records
    /// already filed, so filing them again must leave the files as they are. A failed
    /// `file` fails this ticket only: the journal keeps its records and goes on.
    public func checkpoint(filing file: @escaping @Sendable ([Record]) throws(SandboxError) -> Void) -> Ticket {
        enqueue { .filing($0, file) }
    }

    /// Queues dropping what was written after the last durable record, after a failed
    /// write: the file is cut back, and appending works again. Records appended before
    /// that are not durable fail.
    public func discardUndurable() -> Ticket {
        enqueue { .discard($0) }
    }

    private func enqueue(_ entry: (Ticket) -> Entry) -> Ticket {
        let (ticket, start) = state.withLock { state in
            let ticket = state.nextTicket
            state.nextTicket += 1
            state.pending.append(entry(ticket))
            defer { state.draining = true }
            return (ticket, !state.draining)
        }
        if start { queue.enqueue { self.drain() } }
        return ticket
    }

    // MARK: Waiting

    /// Returns once `ticket` is durable, without holding a thread.
    /// - Throws: ``SandboxError`` of the write, `fsync` or checkpoint that failed it.
    public func waitUntilDurable(_ ticket: Ticket) async throws(SandboxError) {
        let result = await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Void, SandboxError>? in
                if let outcome = state.outcome(of: ticket) { return outcome }
                state.waiters.append((ticket, .task(continuation)))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        try result.get()
    }

    /// ``waitUntilDurable(_:)`` for synchronous callers (the books' `saveChanges()`):
    /// blocks this thread, which must not be one of Swift's cooperative pool, while
    /// the queue writes.
    ///
    /// Why a wake-up of its own rather than `queue.sync`: threads waiting their turn on
    /// the queue would each take it in turn only to find their record written, and a
    /// thread let go first would append its next record before the others were, so
    /// every record would get an `fsync` of its own. Woken together, they append
    /// together, and share the next one.
    public func waitUntilDurableBlocking(_ ticket: Ticket) throws(SandboxError) {
        queue.preconditionNotOnQueue()
        let wakeup = ThreadWakeup()
        let ready = state.withLock { state -> Result<Void, SandboxError>? in
            precondition(ticket < state.nextTicket, "journal ticket \(ticket) was never issued")
            if let outcome = state.outcome(of: ticket) { return outcome }
            state.waiters.append((ticket, .thread(wakeup)))
            return nil
        }
        try (ready ?? wakeup.wait()).get()
    }

    /// The records in the journal file now, as a reopen would replay them: after
    /// ``discardUndurable()``, exactly the durable ones. Reads the file on the calling
    /// thread.
    /// - Throws: ``SandboxError`` when the file cannot be read.
    public func recordsOnDisk() throws(SandboxError) -> [Data] {
        try Self.records(name, in: directory, following: checkpointDigest) ?? []
    }

    /// The whole records of the journal `name` in `directory`, read without its lock:
    /// for a reader beside the process that writes it (a status command). `nil` when
    /// the journal follows another checkpoint than `checkpoint`: either one was written
    /// since the caller read it (read both again), or the journal is an older one,
    /// already folded into `checkpoint` by a store that crashed before restarting it
    /// (the checkpoint reads the same again: there is nothing after it).
    /// - Throws: ``SandboxError`` when the file cannot be read.
    public static func records(
        _ name: String, in directory: SandboxDirectory, following checkpoint: CheckpointDigest
    ) throws(SandboxError) -> [Data]? {
        guard let data = try directory.regularFileContents(name) else { return [] }
        let scan = JournalFormat.scan([UInt8](data))
        guard scan.checkpoint == checkpoint else { return nil }
        return scan.records.map(\.payload)
    }

    /// Bytes in the journal file now; a store checkpoints past a bound of its choice.
    public var size: Int { state.withLock { $0.size } }

    /// Whether the journal holds no record: everything is in the checkpoint.
    public var isEmpty: Bool { size <= JournalFormat.headerSize }

    /// The checkpoint the journal follows.
    public var checkpointDigest: CheckpointDigest { state.withLock { $0.lastCheckpoint } }

    // MARK: The queue

    private func drain() {
        while true {
            let batch = state.withLock { state -> [Entry]? in
                guard !state.pending.isEmpty else {
                    state.draining = false
                    return nil
                }
                defer { state.pending.removeAll(keepingCapacity: true) }
                return state.pending
            }
            guard let batch else { return }
            var records: [UInt8] = []
            var first: Ticket?
            for entry in batch {
                switch entry {
                case .record(let ticket, let payload):
                    JournalFormat.appendRecord(sequence: ticket, payload: payload, to: &records)
                    if first == nil { first = ticket }
                case .checkpoint(let ticket, let write):
                    writeRecords(&records, first: &first, through: ticket - 1)
                    finish(ticket, runCheckpoint(write))
                case .filing(let ticket, let fileRecords):
                    writeRecords(&records, first: &first, through: ticket - 1)
                    finish(
                        ticket,
                        runCheckpoint { () throws(SandboxError) in
                            try fileRecords(file.durableRecords())
                            return .none
                        })
                case .discard(let ticket):
                    writeRecords(&records, first: &first, through: ticket - 1)
                    finish(ticket, file.discardUndurable().map { _ -> CheckpointDigest? in nil })
                }
            }
            if let last = batch.last { writeRecords(&records, first: &first, through: last.ticket) }
        }
    }

    /// Writes and `fsync`s the gathered records, and settles every ticket up to `last`.
    private func writeRecords(_ records: inout [UInt8], first: inout Ticket?, through last: Ticket) {
        defer {
            records.removeAll(keepingCapacity: true)
            first = nil
        }
        guard let firstTicket = first else { return }
        let result = file.append(records)
        state.withLock { $0.size = file.writtenLength }
        switch result {
        case .success: settle(through: last)
        case .failure(let error): settle(through: last, failing: firstTicket...last, error)
        }
    }

    private func runCheckpoint(
        _ write: @Sendable () throws(SandboxError) -> CheckpointDigest
    ) -> Result<CheckpointDigest?, SandboxError> {
        do throws(SandboxError) {
            let digest = try write()
            // The checkpoint now holds every record so far: it is done, whether or not
            // the fresh journal after it can be started now (appends retry that).
            file.restart(following: digest)
            return .success(digest)
        } catch {
            return .failure(error)
        }
    }

    private func finish(_ ticket: Ticket, _ result: Result<CheckpointDigest?, SandboxError>) {
        switch result {
        case .success(let digest):
            state.withLock { state in
                state.size = file.writtenLength
                if let digest { state.lastCheckpoint = digest }
            }
            settle(through: ticket)
        case .failure(let error):
            settle(through: ticket, failing: ticket...ticket, error)
        }
    }

    private func settle(through last: Ticket, failing: ClosedRange<Ticket>? = nil, _ error: SandboxError? = nil) {
        let ready = state.withLock { state in
            if let failing, let error { state.fail(failing, error) }
            state.doneThrough = max(state.doneThrough, last)
            var ready: [(Waiter, Result<Void, SandboxError>)] = []
            var waiting = state.waiters
            waiting.removeAll { waiter in
                guard let outcome = state.outcome(of: waiter.ticket) else { return false }
                ready.append((waiter.waiter, outcome))
                return true
            }
            state.waiters = waiting
            return ready
        }
        for (waiter, outcome) in ready { waiter.resume(outcome) }
    }
}
