import AppRuntime
@_spi(Journal) import AppSandbox
import Foundation
import Locking
public import PropertyList

extension Defaults {
    /// Saves every unsaved change now, merging with what other processes saved.
    ///
    /// Changes are saved on their own within ``Configuration/writeDelay``; call this
    /// where the process may end sooner. The lifecycle layer calls it on entering the
    /// background and on termination (``applicationDidEnterBackground()``,
    /// ``applicationWillTerminate()``). On failure the changes stay unsaved in memory
    /// and are tried again by the next save.
    ///
    /// - Throws: ``DefaultsError`` `.fileSystem` when a file cannot be locked or written
    ///   (the first such error; every domain is still tried).
    public func flush() throws(DefaultsError) {
        let (changes, firstError) = saveAll()
        // Observers may save again from their handlers: deliver after unlocking.
        announceErrors()
        deliver(changes)
        if let firstError { throw firstError }
    }

    /// Saves every dirty domain; the changes others' saves brought in, and the first error.
    func saveAll() -> ([DefaultsChange], DefaultsError?) {
        saving.withLock { _ in
            let dirty = state.withLock { state in
                state.saveScheduled = false
                return state.takeDirtySnapshots()
            }
            var firstError: DefaultsError?
            var changes: [DefaultsChange] = []
            for (file, snapshot) in dirty {
                do throws(DefaultsError) {
                    changes += try save(file, snapshot)
                } catch {
                    state.withLock { $0.domains[file.domain]?.restore(snapshot) }
                    firstError = firstError ?? error
                }
            }
            foldLargeJournals(of: dirty.map(\.file))
            return (changes, firstError)
        }
    }

    /// Folds the journals of `files` that passed ``PreferencesJournal/foldBytes``,
    /// holding `saving`. The changes are durable whatever the fold does: its failure
    /// is reported, not thrown.
    private func foldLargeJournals(of files: [PreferencesFile]) {
        let large = files.compactMap(journal(of:)).filter { $0.journal.size > PreferencesJournal.foldBytes }
        if let foldError = fold(large) { state.withLock { $0.report(foldError) } }
    }

    /// The journal this ``Defaults`` opened for `file`'s domain, if it saved there.
    private func journal(of file: PreferencesFile) -> PreferencesJournal? {
        state.withLock { $0.domains[file.domain]?.journal }
    }

    /// Folds each journal into its plist (``PreferencesJournal/fold()``), holding
    /// `saving`; the first error.
    private func fold(_ journals: [PreferencesJournal]) -> DefaultsError? {
        var firstError: DefaultsError?
        for journal in journals {
            do throws(DefaultsError) {
                try coordinate(writing: journal.file) { () throws(DefaultsError) in try journal.fold() }
            } catch {
                firstError = firstError ?? error
            }
        }
        return firstError
    }

    /// Changes `key` in the primary domain from the value saved now, by whichever
    /// process saved it, to what `transform` returns (nil removes it), and saves at
    /// once, all under the domain's cross-process lock.
    ///
    /// A read-modify-write through ``subscript(_:)->PropertyListValue?`` (read, change,
    /// set) can interleave with another process's, and one of the two changes is lost;
    /// this cannot. Unsaved changes of this process are saved with it. `transform` runs
    /// on the calling thread while the lock is held: keep it short.
    ///
    /// ```swift
    /// try defaults.update("recentSearches") { current in
    ///     .array((current?.arrayValue ?? []) + ["spork"])
    /// }
    /// ```
    /// - Throws: ``DefaultsError`` (`.timedOut` when another process holds the lock
    ///   too long), or what `transform` throws; nothing is written then.
    public func update(_ key: String, _ transform: (PropertyListValue?) throws -> PropertyListValue?) throws {
        var transformError: (any Error)?
        let outcome: Result<[DefaultsChange], DefaultsError> = saving.withLock { _ in
            let (file, snapshot) = state.withLock { state in
                let file = loadDomain(named: domainName, in: &state).file
                let snapshot =
                    state.domains[domainName]?.takeSnapshot()
                    ?? PersistentDomain.Snapshot(pending: [:], replaced: false, values: [:], version: nil)
                return (file, snapshot)
            }
            do throws(DefaultsError) {
                let changes = try save(file, snapshot) { (values: inout PropertyListDictionary) throws(DefaultsError) in
                    do {
                        values[key] = try transform(values[key])
                        return true
                    } catch {
                        transformError = error
                        throw DefaultsError(.notPropertyList, "the update of \(key) failed", domain: self.domainName)
                    }
                }
                foldLargeJournals(of: [file])
                // The key changed here, not in another process.
                return .success(
                    changes.map { change in
                        var change = change
                        if change.key == key { change.isExternal = false }
                        return change
                    })
            } catch {
                state.withLock { $0.domains[file.domain]?.restore(snapshot) }
                return .failure(error)
            }
        }
        announceErrors()
        if let transformError { throw transformError }
        deliver(try outcome.get())
    }

    /// Saves unsaved changes and reads other processes' changes now.
    /// Corresponds to `synchronize()`, which Apple's documentation calls unnecessary;
    /// here too, as changes save themselves.
    /// - Returns: false when a save failed; the error is in ``reportedErrors``.
    @discardableResult
    public func synchronize() -> Bool {
        var saved = true
        do throws(DefaultsError) {
            try flush()
        } catch {
            report(error)
            saved = false
        }
        checkForExternalChanges()
        return saved
    }

    /// Lifecycle hook: saves at once and folds the journals into the plists. The
    /// lifecycle layer calls it where iOS calls `applicationDidEnterBackground(_:)`;
    /// failures are reported, not thrown.
    public func applicationDidEnterBackground() {
        synchronizeAndFold()
    }

    /// Lifecycle hook: saves at once and folds the journals into the plists. The
    /// lifecycle layer calls it where iOS calls `applicationWillTerminate(_:)`;
    /// failures are reported, not thrown.
    public func applicationWillTerminate() {
        synchronizeAndFold()
    }

    private func synchronizeAndFold() {
        guard synchronize() else { return }
        do throws(DefaultsError) {
            try checkpoint()
        } catch {
            report(error)
        }
    }

    /// Saves every unsaved change (``flush()``), then folds this process's journals into
    /// the plists: each plist made durable, and its journal emptied. Entering the
    /// background and terminating do it (``applicationDidEnterBackground()``); call it
    /// where an app saves on those events itself. A change is durable without it.
    /// - Throws: ``DefaultsError`` `.fileSystem`, `.timedOut`; a journal that could not
    ///   be folded keeps its records.
    public func checkpoint() throws(DefaultsError) {
        try flush()
        let error = saving.withLock { _ in fold(state.withLock { $0.domains.values.compactMap(\.journal) }) }
        if let error { throw error }
    }

    /// Asks for a save within `delay` (the write delay by default), unless one is
    /// already asked for.
    /// Runs under the state mutex: `state` is the value inside it.
    func scheduleSave(in state: inout State, after delay: Duration? = nil) {
        guard !state.saveScheduled else { return }
        state.saveScheduled = true
        configuration.scheduler.schedule(after: delay ?? configuration.writeDelay) { [weak self] in
            self?.backgroundSave()
        }
    }

    /// A scheduled save. A failure is reported and the save tried again, after twice
    /// the previous wait each time (from one second up to a minute), until one works.
    private func backgroundSave() {
        do throws(DefaultsError) {
            try flush()
            state.withLock { $0.failedSaves = 0 }
        } catch {
            report(error)
            state.withLock { state in
                state.failedSaves += 1
                let wait = Duration.seconds(1 << min(state.failedSaves - 1, 6))
                scheduleSave(in: &state, after: max(configuration.writeDelay, min(wait, .seconds(60))))
            }
        }
    }

    /// Writes one domain under the cross-process lock: this process's changed keys on
    /// top of the file as it is now, durable in this process's journal first
    /// (``PreferencesJournal``), then in the plist, replaced without `fsync`. Called
    /// holding `saving`, not `state`.
    /// - Returns: the changes of winning values that others' saves brought in.
    /// The values to write are passed through `adjust`, still under the lock; when it
    /// returns true, the view in memory is rebuilt from what was written.
    private func save(
        _ file: PreferencesFile, _ snapshot: PersistentDomain.Snapshot,
        adjusting adjust: (inout PropertyListDictionary) throws(DefaultsError) -> Bool = { _ in false }
    ) throws(DefaultsError) -> [DefaultsChange] {
        var corruption: DefaultsError?
        let (saved, version, readFile) = try coordinate(writing: file) { () throws(DefaultsError) in
            // First: opening the journal replays what others left, which may change the file.
            let journal = try self.journal(for: file)
            var base: PropertyListDictionary
            var readFile = false
            let bytes = snapshot.replaced ? nil : try file.bytes()
            if snapshot.replaced || bytes.map(PreferencesFile.Version.init(of:)) == snapshot.version {
                // The file is the one this view was built on (or is replaced as a whole):
                // the view in memory is the file plus this process's changes.
                base = snapshot.values
            } else {
                readFile = true
                switch try bytes.map(file.interpret) ?? .absent {
                case .absent: base = [:]
                case .values(let values, _): base = values
                case .corrupt(let error):
                    // Keep what was last known good; the bad file is already aside.
                    corruption = error
                    base = snapshot.values
                }
                for (key, value) in snapshot.pending { base[key] = value }
            }
            if try adjust(&base) { readFile = true }
            let plist = try file.encode(base)
            let stamp = try journal.record(plist)
            do throws(DefaultsError) {
                return (base, try file.write(plist), readFile)
            } catch {
                // Reported as failed, so it must never come back from the journal.
                do {
                    try journal.withdraw(stamp)
                } catch let withdrawal {
                    StandardStream.error.report(
                        "Defaults: \(file.domain): a failed save could not be withdrawn from the journal: \(withdrawal)"
                    )
                }
                throw error
            }
        }
        return state.withLock { [corruption] state in
            if let corruption { state.report(corruption) }
            state.domains[file.domain]?.version = version
            return readFile ? state.rebase(file.domain, onto: saved) : []
        }
    }

    /// Reads every domain whose file another process replaced, and delivers the
    /// changed keys to observers. Runs when the file watch sees a change, every
    /// ``Configuration/externalChangeInterval``, and from ``synchronize()``.
    public func checkForExternalChanges() {
        // Not while a save is under way: its changes are in neither `pending` nor the
        // file yet, and rebuilding the view from the file would hide them.
        let changes = saving.withLock { _ in
            // Versions change only while `saving` is held, so one look at them will do.
            let watched = state.withLock { state in state.domains.values.map { ($0.file, $0.version) } }
            var changes: [DefaultsChange] = []
            for (file, known) in watched {
                guard let (values, version) = readFile(file, unlessAt: known, report: { report($0) }) else { continue }
                changes += state.withLock { state in
                    state.domains[file.domain]?.version = version
                    // A corrupt file (now aside) leaves the view as it was: the next save
                    // writes the last values known good.
                    guard let values, state.domains[file.domain]?.replaced == false else { return [] }
                    return state.rebase(file.domain, onto: values)
                }
            }
            return changes
        }
        announceErrors()
        deliver(changes)
    }

    /// The file's values and their version; nil when the file is still at `known`, or
    /// could not be read (handed to `report`). A corrupt file is moved aside under the
    /// write lock and handed to `report`; its values are then nil, and its version nil
    /// (no file).
    func readFile(
        _ file: PreferencesFile, unlessAt known: PreferencesFile.Version?? = .none, report: (DefaultsError) -> Void
    ) -> (PropertyListDictionary?, PreferencesFile.Version?)? {
        do {
            // Without the lock first: files are replaced whole, so the bytes are one version.
            guard let bytes = try file.bytes() else { return known == .some(nil) ? nil : ([:], nil) }
            let version = PreferencesFile.Version(of: bytes)
            if known == .some(version) { return nil }
            if case .success(let values) = file.parse(bytes) { return (values, version) }
            let contents = try coordinate(writing: file) { () throws(DefaultsError) in try file.read() }
            // Reported once the cross-process lock is released.
            switch contents {
            case .absent: return ([:], nil)
            case .values(let values, let version): return (values, version)
            case .corrupt(let error):
                report(error)
                return (nil, nil)
            }
        } catch {
            report(error)
            return nil
        }
    }

    /// This process's journal of `file`'s domain, opened by its first save. Called
    /// holding `saving` and the domain's lock.
    private func journal(for file: PreferencesFile) throws(DefaultsError) -> PreferencesJournal {
        if let journal = journal(of: file) { return journal }
        let journal = try PreferencesJournal.open(for: file)
        state.withLock { $0.domains[file.domain]?.journal = journal }
        return journal
    }

    /// Replays the journals that processes gone before left for `file`'s domain
    /// (``PreferencesJournal``), before the domain is first read. A failure is handed
    /// to `report`, and the file read as it is.
    func recoverOrphanJournals(of file: PreferencesFile, report: (DefaultsError) -> Void) {
        do throws(DefaultsError) {
            guard try !PreferencesJournal.orphans(of: file).isEmpty else { return }
            try coordinate(writing: file) { () throws(DefaultsError) in try PreferencesJournal.recoverOrphans(of: file)
            }
        } catch {
            report(error)
        }
    }

    /// Folds and lets go of every journal this ``Defaults`` opened (a save after opens
    /// one again); a journal whose fold fails is left for the next process to replay.
    func closeJournals() {
        saving.withLock { _ in
            let journals = state.withLock { state in
                defer { for name in state.domains.keys { state.domains[name]?.journal = nil } }
                return state.domains.values.compactMap(\.journal)
            }
            for journal in journals {
                do throws(DefaultsError) {
                    try coordinate(writing: journal.file) { () throws(DefaultsError) in try journal.close() }
                } catch {
                    journal.journal.close()
                    state.withLock { $0.report(error) }
                }
            }
        }
    }

    /// Runs `body` holding the cross-process write lock of `file`.
    private func coordinate<T>(writing file: PreferencesFile, _ body: () throws(DefaultsError) -> T)
        throws(DefaultsError) -> T
    {
        try file.withWriteLock(body)
    }

    /// Checks for other processes' changes whenever a file in `Library/Preferences/`
    /// is replaced (creating the folder if needed); without a watch, only the periodic
    /// check runs.
    func startWatching() {
        #if os(Linux)
        let folder = container.url(for: .preferences)
        guard (try? preferencesDirectory.create()) != nil else { return }
        let watcher = DirectoryWatcher(directory: folder.path) { [weak self] in
            self?.checkForExternalChanges()
        }
        state.withLock { $0.watcher = watcher }
        #endif
    }

    func stopWatching() {
        #if os(Linux)
        let watcher = state.withLock { $0.watcher }
        (watcher as? DirectoryWatcher)?.stop()
        #endif
    }

    /// Checks for other processes' changes every ``Configuration/externalChangeInterval``
    /// while this ``Defaults`` lives.
    func schedulePoll() {
        guard let interval = configuration.externalChangeInterval else { return }
        configuration.scheduler.schedule(after: interval) { [weak self] in
            guard let self else { return }
            self.checkForExternalChanges()
            self.schedulePoll()
        }
    }
}
