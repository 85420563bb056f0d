@_spi(Journal) import AppSandbox
import Foundation
import Locking

/// One process's journal of a preferences domain, and the replay of the journals that
/// processes gone before left behind.
///
/// A save, under the domain's cross-process lock as before, appends the plist bytes it
/// is about to write, stamped (``PreferencesStamp``), to this process's journal and
/// `fsync`s it; then replaces the plist without `fsync`. The rename shows it to every
/// process at once, and a process killed after it loses nothing, as the kernel keeps
/// what was written: only a machine that stops (a power cut, a kernel crash) can lose
/// the plist's last versions, and the journals then hold them. Concurrent changes of
/// one process share a save, and so its `fsync`: a `flush()` waiting for another finds
/// its changes saved by it.
///
/// A journal is a slot, `.keepsake-<domain>.plist.<n>.journal` in `Library/Preferences/`,
/// owned by locking it. Under the domain's lock, when a process first reads the domain
/// and before it takes a slot, the slots no one holds are replayed:
/// - records stamped in this boot are in the plist already, or under later saves;
/// - records of an earlier boot are what a stopped machine may have lost: the latest
///   one is written back as the plist, unless the plist was made durable later. Where
///   the system gives no boot id (only Linux does, here), none is written back.
///
/// The plist is then made durable and those slots removed. Folding (entering the
/// background, terminating, a journal past ``foldBytes``) makes the plist durable,
/// records when in `.keepsake-<domain>.plist.folded`, and empties this process's slot:
/// older records left in other slots then lose to the plist.
///
/// "Later" never asks the wall clock across boots: `.keepsake-<domain>.plist.boots`
/// counts the boots the domain was used in, and every stamp carries its boot's number
/// (``PreferencesStamp``). A save whose plist could not be written is withdrawn by a
/// record of its own, so that a replay never brings back a save reported as failed.
final class PreferencesJournal: Sendable {
    let file: PreferencesFile
    let journal: Journal
    /// This boot's number for the domain, which every stamp of this journal carries.
    let bootNumber: UInt64
    /// Set when cutting a failed record off failed: the next record tries again
    /// first. Each record is a whole plist, so none depends on one cut off.
    private let cutBackOwed = Locked(false)

    /// Past this size the journal is folded into the plist.
    static let foldBytes = 256 << 10
    /// What a record is, by its first byte.
    private enum RecordFormat: UInt8 {
        /// A save: its stamp, without a boot number, then the plist (written before boots were counted).
        case unnumberedSave = 1
        /// A save: its stamp, with the boot number, then the plist.
        case save = 2
        /// The save with this stamp did not write its plist: it is not replayed.
        case withdrawal = 3
    }
    private static let maxSlots = 4096

    private init(file: PreferencesFile, journal: Journal, bootNumber: UInt64) {
        self.file = file
        self.journal = journal
        self.bootNumber = bootNumber
    }

    // MARK: Names

    /// `.keepsake-<domain>.plist.`, or the FNV-1a hash of the file's name in place of
    /// it when a slot's name would not fit in 255 bytes.
    private static func prefix(_ file: PreferencesFile) -> String {
        let plain = ".keepsake-\(file.fileName)."
        if plain.utf8.count + 16 <= 255 { return plain }
        return ".keepsake-\(String(PreferencesFile.Version(of: Data(file.fileName.utf8)).hash, radix: 16))."
    }

    private static func slotName(_ file: PreferencesFile, _ slot: Int) -> String { prefix(file) + "\(slot).journal" }

    private static func foldedName(_ file: PreferencesFile) -> String { prefix(file) + "folded" }

    private static func bootsName(_ file: PreferencesFile) -> String { prefix(file) + "boots" }

    /// The slots on disk that no process holds.
    static func orphans(of file: PreferencesFile) throws(DefaultsError) -> [String] {
        try slots(of: file).filter { !Journal.isOpen($0, in: file.directory) }
    }

    /// The slots on disk, held or not.
    static func slots(of file: PreferencesFile) throws(DefaultsError) -> [String] {
        let prefix = prefix(file)
        do {
            return try file.directory.internalNames().filter { name in
                guard name.hasPrefix(prefix), name.hasSuffix(".journal") else { return false }
                let slot = name.dropFirst(prefix.count).dropLast(".journal".count)
                return !slot.isEmpty && slot.allSatisfy(\.isASCIIDigit)
            }
        } catch .noSuchFile {
            return []
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "listing the preferences journals")
        }
    }

    // MARK: Opening

    /// Replays the slots no one holds, then takes the first free one. Call holding the
    /// domain's lock.
    static func open(for file: PreferencesFile) throws(DefaultsError) -> PreferencesJournal {
        let bootNumber = try recoverOrphans(of: file)
        for slot in 0..<maxSlots {
            guard let (journal, _) = try openUnlessHeld(slotName(file, slot), file) else { continue }
            return PreferencesJournal(file: file, journal: journal, bootNumber: bootNumber)
        }
        throw DefaultsError(.fileSystem, "all \(maxSlots) journal slots are held", domain: file.domain)
    }

    private static func openUnlessHeld(_ name: String, _ file: PreferencesFile) throws(DefaultsError) -> (
        Journal, JournalRecovery
    )? {
        do {
            return try Journal.open(name, in: file.directory) { .none }
        } catch let error as SandboxError where error.code == .timedOut {
            return nil
        } catch let error as SandboxError {
            throw DefaultsError(error, domain: file.domain, operation: "opening a preferences journal")
        } catch {
            throw DefaultsError(.fileSystem, "opening a preferences journal failed: \(error)", domain: file.domain)
        }
    }

    /// Replays and removes the slots no one holds (see the type's summary), and returns
    /// this boot's number for the domain. Call holding the domain's lock.
    @discardableResult
    static func recoverOrphans(of file: PreferencesFile) throws(DefaultsError) -> UInt64 {
        let bootNumber = try currentBootNumber(of: file)
        var orphans: [Journal] = []
        defer { for orphan in orphans { orphan.close() } }
        var latest: (stamp: PreferencesStamp, plist: Data)?
        for name in try slots(of: file) {
            let opened: (Journal, JournalRecovery)?
            do throws(DefaultsError) {
                opened = try openUnlessHeld(name, file)
            } catch {
                // One slot that cannot be read must not stop every save: it stays for
                // a later process, and is reported.
                StandardStream.error.report("Defaults: \(name) cannot be replayed now: \(error)")
                continue
            }
            guard let (journal, recovery) = opened else { continue }
            orphans.append(journal)
            for (stamp, plist) in saves(in: recovery.records, of: name)
            where stamp.isOfAnEarlierBoot && latest.map({ stamp.isLater(than: $0.stamp) }) ?? true {
                latest = (stamp, plist)
            }
        }
        guard !orphans.isEmpty else { return bootNumber }
        let folded = try readFolded(file)
        if let latest, folded.map({ latest.stamp.isLater(than: $0) }) ?? true {
            try replace(file, with: latest.plist)
            StandardStream.error.report(
                "Defaults: \(file.domain): the save of \(Date(timeIntervalSince1970: latest.stamp.wallClock)) "
                    + "(boot \(latest.stamp.bootNumber.map(String.init) ?? "?")) is written back from a journal "
                    + "the machine's stop left")
        } else {
            if let latest {
                StandardStream.error.report(
                    "Defaults: \(file.domain): the save of \(Date(timeIntervalSince1970: latest.stamp.wallClock)) "
                        + "in a journal the machine's stop left is older than the plist, which stays")
            }
            try makeDurable(file)
        }
        try writeFolded(file, bootNumber: bootNumber)
        do throws(SandboxError) {
            for orphan in orphans { try file.directory.removeItem(orphan.name) }
            try file.directory.synchronizeFolder()
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "removing replayed preferences journals")
        }
        return bootNumber
    }

    /// The saves a slot's records hold, less those withdrawn; a record that is neither
    /// is reported and skipped.
    static func saves(in records: [Data], of name: String) -> [(PreferencesStamp, Data)] {
        var saves: [(PreferencesStamp, Data)] = []
        var withdrawn: [PreferencesStamp] = []
        for record in records {
            switch record.first.flatMap(RecordFormat.init(rawValue:)) {
            case .unnumberedSave?, .save?:
                if let save = PreferencesStamp.decode(
                    record.dropFirst(), numbered: record.first == RecordFormat.save.rawValue)
                {
                    saves.append(save)
                    continue
                }
            case .withdrawal?:
                if let (stamp, _) = PreferencesStamp.decode(record.dropFirst(), numbered: true) {
                    withdrawn.append(stamp)
                    continue
                }
            case nil: break
            }
            StandardStream.error.report("Defaults: \(name) holds a record that is not a save; it is skipped")
        }
        return saves.filter { save in !withdrawn.contains(save.0) }
    }

    /// This boot's number for the domain: the number on disk if it was taken in this
    /// boot, else one more, written durably before any stamp carries it. A file that
    /// cannot be read counts on from the folded stamp's number. Call holding the
    /// domain's lock.
    private static func currentBootNumber(of file: PreferencesFile) throws(DefaultsError) -> UInt64 {
        let boot = PreferencesStamp.currentBoot ?? ""
        let bytes: Data?
        do {
            bytes = try file.directory.regularFileContents(bootsName(file))
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "reading the count of boots")
        }
        let stored = bytes.flatMap(PreferencesStamp.decodeWhole)
        if let stored, stored.boot == boot, let number = stored.bootNumber { return number }
        if bytes != nil, stored?.bootNumber == nil {
            StandardStream.error.report(
                "Defaults: \(file.domain): the count of boots cannot be read; it goes on from the folded stamp")
        }
        let folded = stored?.bootNumber == nil ? try readFolded(file) : nil
        let previous = stored?.bootNumber ?? folded?.bootNumber ?? 0
        let record = PreferencesStamp(
            boot: boot, sinceBoot: 0, wallClock: Date().timeIntervalSince1970, bootNumber: previous + 1)
        do {
            try file.directory.create()
            try file.directory.replaceRegularFile(record.encoded(), at: bootsName(file))
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "counting the boots")
        }
        return previous + 1
    }

    // MARK: Saving

    /// Makes the plist bytes a save is about to write durable, stamped now, before the
    /// plist is replaced, and returns the stamp. Call holding the domain's lock.
    func record(_ plist: Data) throws(DefaultsError) -> PreferencesStamp {
        let stamp = PreferencesStamp.now(bootNumber: bootNumber)
        var record = Data([RecordFormat.save.rawValue])
        record.append(stamp.encoded())
        record.append(plist)
        try append(record, operation: "journaling the preferences")
        return stamp
    }

    /// Records, durably, that the save stamped `stamp` did not write its plist, so that
    /// no replay brings it back. Call holding the domain's lock.
    func withdraw(_ stamp: PreferencesStamp) throws(DefaultsError) {
        var record = Data([RecordFormat.withdrawal.rawValue])
        record.append(stamp.encoded())
        try append(record, operation: "withdrawing a failed save from the journal")
    }

    private func append(_ record: Data, operation: String) throws(DefaultsError) {
        do {
            if cutBackOwed.withLock({ $0 }) { try cutBack() }
            try journal.waitUntilDurableBlocking(journal.append(record))
        } catch {
            // Cut off what may be whole in the file before saying it failed.
            try? cutBack()
            throw DefaultsError(error, domain: file.domain, operation: operation)
        }
    }

    private func cutBack() throws(SandboxError) {
        do throws(SandboxError) {
            try journal.waitUntilDurableBlocking(journal.discardUndurable())
            cutBackOwed.withLock { $0 = false }
        } catch {
            cutBackOwed.withLock { $0 = true }
            throw error
        }
    }

    /// Makes the plist durable, records when, and empties this journal. Call holding
    /// the domain's lock, with no save of this process under way.
    func fold() throws(DefaultsError) {
        try Self.makeDurable(file)
        try Self.writeFolded(file, bootNumber: bootNumber)
        do {
            try journal.waitUntilDurableBlocking(journal.checkpoint { .none })
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "emptying the preferences journal")
        }
    }

    /// Folds, then removes this slot and lets it go. Call holding the domain's lock.
    /// A fold that fails leaves the slot for the next process to replay.
    func close() throws(DefaultsError) {
        defer { journal.close() }
        try fold()
        do {
            try file.directory.removeItem(journal.name)
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "removing the preferences journal")
        }
    }

    // MARK: The plist and the folded stamp

    private static func makeDurable(_ file: PreferencesFile) throws(DefaultsError) {
        guard let bytes = try file.bytes() else { return }
        try replace(file, with: bytes)
    }

    private static func replace(_ file: PreferencesFile, with bytes: Data) throws(DefaultsError) {
        do {
            try file.directory.replaceRegularFile(bytes, at: file.fileName)
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "writing the preferences file")
        }
    }

    private static func readFolded(_ file: PreferencesFile) throws(DefaultsError) -> PreferencesStamp? {
        do {
            return try file.directory.regularFileContents(foldedName(file)).flatMap(PreferencesStamp.decodeWhole)
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "reading when the preferences were folded")
        }
    }

    private static func writeFolded(_ file: PreferencesFile, bootNumber: UInt64) throws(DefaultsError) {
        do {
            try file.directory.replaceRegularFile(
                PreferencesStamp.now(bootNumber: bootNumber).encoded(), at: foldedName(file))
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "recording when the preferences were folded")
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
