import AppSandbox
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
final class PreferencesJournal: Sendable {
    let file: PreferencesFile
    let journal: Journal
    /// Set when cutting a failed record off failed: the next record tries again
    /// first. Each record is a whole plist, so none depends on one cut off.
    private let cutBackOwed = Locked(false)

    /// Past this size the journal is folded into the plist.
    static let foldBytes = 256 << 10
    private static let recordFormat: UInt8 = 1
    private static let maxSlots = 4096

    private init(file: PreferencesFile, journal: Journal) {
        self.file = file
        self.journal = journal
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
        try recoverOrphans(of: file)
        for slot in 0..<maxSlots {
            guard let (journal, _) = try openUnlessHeld(slotName(file, slot), file) else { continue }
            return PreferencesJournal(file: file, journal: journal)
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

    /// Replays and removes the slots no one holds (see the type's summary). Call
    /// holding the domain's lock.
    static func recoverOrphans(of file: PreferencesFile) throws(DefaultsError) {
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
            for record in recovery.records {
                guard record.first == recordFormat, let (stamp, plist) = PreferencesStamp.decode(record.dropFirst())
                else {
                    StandardStream.error.report("Defaults: \(name) holds a record that is not a save; it is skipped")
                    continue
                }
                if stamp.isOfAnEarlierBoot, latest.map({ stamp.isLater(than: $0.stamp) }) ?? true {
                    latest = (stamp, plist)
                }
            }
        }
        guard !orphans.isEmpty else { return }
        if let latest, try readFolded(file).map({ latest.stamp.isLater(than: $0) }) ?? true {
            try replace(file, with: latest.plist)
            StandardStream.error.report(
                "Defaults: \(file.domain): the save of \(Date(timeIntervalSince1970: latest.stamp.wallClock)) "
                    + "is written back from a journal the machine's stop left")
        } else {
            try makeDurable(file)
        }
        try writeFolded(file)
        do throws(SandboxError) {
            for orphan in orphans { try file.directory.removeItem(orphan.name) }
            try file.directory.synchronizeFolder()
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "removing replayed preferences journals")
        }
    }

    // MARK: Saving

    /// Makes the plist bytes a save is about to write durable, stamped now, before the
    /// plist is replaced. Call holding the domain's lock.
    func record(_ plist: Data) throws(DefaultsError) {
        var record = Data([Self.recordFormat])
        record.append(PreferencesStamp.now().encoded())
        record.append(plist)
        do {
            if cutBackOwed.withLock({ $0 }) { try cutBack() }
            try journal.waitUntilDurableBlocking(journal.append(record))
        } catch {
            // Cut off what may be whole in the file before saying it failed.
            try? cutBack()
            throw DefaultsError(error, domain: file.domain, operation: "journaling the preferences")
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
        try Self.writeFolded(file)
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
            return try file.directory.regularFileContents(foldedName(file)).flatMap(PreferencesStamp.decode)?.0
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "reading when the preferences were folded")
        }
    }

    private static func writeFolded(_ file: PreferencesFile) throws(DefaultsError) {
        do {
            try file.directory.replaceRegularFile(PreferencesStamp.now().encoded(), at: foldedName(file))
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "recording when the preferences were folded")
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
