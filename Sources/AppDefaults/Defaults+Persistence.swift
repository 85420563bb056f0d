import AppSandbox
import Foundation
import PropertyList

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
        saveLock.lock()
        lock.lock()
        saveScheduled = false
        let dirty = domains.values.filter(\.isDirty).map { ($0, $0.takeSnapshot()) }
        lock.unlock()
        var firstError: DefaultsError?
        var changes: [DefaultsChange] = []
        for (domain, snapshot) in dirty {
            do {
                changes += try save(domain, snapshot)
            } catch {
                lock.lock()
                domain.restore(snapshot)
                lock.unlock()
                firstError = firstError ?? error
            }
        }
        saveLock.unlock()
        // Observers may save again from their handlers: deliver after unlocking.
        announceErrors()
        deliver(changes)
        if let firstError { throw firstError }
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

    /// Lifecycle hook: saves at once. The lifecycle layer calls it where iOS calls
    /// `applicationDidEnterBackground(_:)`; failures are reported, not thrown.
    public func applicationDidEnterBackground() {
        synchronize()
    }

    /// Lifecycle hook: saves at once. The lifecycle layer calls it where iOS calls
    /// `applicationWillTerminate(_:)`; failures are reported, not thrown.
    public func applicationWillTerminate() {
        synchronize()
    }

    /// Asks for a save within `delay` (the write delay by default), unless one is
    /// already asked for.
    func scheduleSaveLocked(after delay: Duration? = nil) {
        guard !saveScheduled else { return }
        saveScheduled = true
        configuration.scheduler.schedule(after: delay ?? configuration.writeDelay) { [weak self] in
            self?.backgroundSave()
        }
    }

    /// A scheduled save. A failure is reported and the save tried again, after twice
    /// the previous wait each time (from one second up to a minute), until one works.
    private func backgroundSave() {
        do throws(DefaultsError) {
            try flush()
            lock.lock()
            failedSaves = 0
            lock.unlock()
        } catch {
            report(error)
            lock.lock()
            failedSaves += 1
            let wait = Duration.seconds(1 << min(failedSaves - 1, 6))
            scheduleSaveLocked(after: max(configuration.writeDelay, min(wait, .seconds(60))))
            lock.unlock()
        }
    }

    /// Writes one domain under the cross-process lock: this process's changed keys on
    /// top of the file as it is now.
    /// - Returns: the changes of winning values that others' saves brought in.
    private func save(_ domain: PersistentDomain, _ snapshot: PersistentDomain.Snapshot) throws(DefaultsError) -> [DefaultsChange] {
        let file = domain.file
        var corruption: DefaultsError?
        let (saved, stamp, readFile) = try coordinate(writing: file) { () throws(DefaultsError) in
            var base: PropertyListDictionary
            var readFile = false
            if snapshot.replaced || file.stamp() == snapshot.stamp {
                // No one replaced the file since it was read: the view in memory is the
                // file plus this process's changes.
                base = snapshot.values
            } else {
                readFile = true
                switch try file.read() {
                case .absent: base = [:]
                case .values(let values): base = values
                case .corrupt(let error):
                    // Keep what was last known good; the bad file is already aside.
                    corruption = error
                    base = snapshot.values
                }
                for (key, value) in snapshot.pending { base[key] = value }
            }
            try file.write(base)
            return (base, file.stamp(), readFile)
        }
        lock.lock()
        if let corruption { reportLocked(corruption) }
        domain.stamp = stamp
        var changes: [DefaultsChange] = []
        if readFile {
            let before = snapshotLocked()
            domain.values = domain.applyingPending(to: saved)
            changes = diffLocked(from: before, isExternal: true)
        }
        lock.unlock()
        return changes
    }

    /// Reads every domain whose file another process replaced, and delivers the
    /// changed keys to observers. Runs every ``Configuration/externalChangeInterval``
    /// and from ``synchronize()``.
    public func checkForExternalChanges() {
        // Not while a save is under way: its changes are in neither `pending` nor the
        // file yet, and rebuilding the view from the file would hide them.
        saveLock.lock()
        lock.lock()
        let watched = Array(domains.values)
        lock.unlock()
        var changes: [DefaultsChange] = []
        for domain in watched {
            lock.lock()
            let known = domain.stamp
            lock.unlock()
            let current = domain.file.stamp()
            guard current != known else { continue }
            guard let (values, stamp) = readFile(of: domain) else { continue }
            lock.lock()
            if domain.stamp == known, !domain.replaced {
                let before = snapshotLocked()
                domain.values = domain.applyingPending(to: values)
                domain.stamp = stamp
                changes += diffLocked(from: before, isExternal: true)
            }
            lock.unlock()
        }
        saveLock.unlock()
        announceErrors()
        deliver(changes)
    }

    /// Reads a domain's file for the first time.
    func load(_ domain: PersistentDomain) {
        // Called under `lock` from `persistentDomainLocked`; files are small.
        guard let (values, stamp) = readFile(of: domain, reportingLocked: true) else { return }
        domain.values = values
        domain.stamp = stamp
    }

    /// The file's values and the stamp they belong to; nil when it could not be read
    /// (reported). A corrupt file is moved aside under the write lock and reads as
    /// empty, reported.
    private func readFile(of domain: PersistentDomain, reportingLocked: Bool = false) -> (PropertyListDictionary, PreferencesFile.Stamp?)? {
        let file = domain.file
        let record: (DefaultsError) -> Void = { error in
            if reportingLocked { self.reportLocked(error) } else { self.report(error) }
        }
        // The stamp first: a replacement after it is seen again by the next check.
        let stamp = file.stamp()
        guard stamp != nil else { return ([:], nil) }
        if case .values(let values) = file.readWithoutMovingAside() { return (values, stamp) }
        do {
            return try coordinate(writing: file) { () throws(DefaultsError) in
                let stamp = file.stamp()
                switch try file.read() {
                case .absent: return ([:], nil)
                case .values(let values): return (values, stamp)
                case .corrupt(let error):
                    record(error)
                    return ([:], nil)
                }
            }
        } catch {
            record(error)
            return nil
        }
    }

    /// Runs `body` holding the cross-process write lock of `file`.
    private func coordinate<T>(writing file: PreferencesFile, _ body: () throws(DefaultsError) -> T) throws(DefaultsError) -> T {
        do {
            try file.fileSystem.createDirectory(at: file.url.deletingLastPathComponent())
        } catch {
            throw DefaultsError(error, domain: file.domain, operation: "creating Library/Preferences")
        }
        do {
            return try configuration.coordinator.coordinate(writingItemAt: file.lockURL) { _ in try body() }
        } catch let error as DefaultsError {
            throw error
        } catch let error as SandboxError {
            throw DefaultsError(error, domain: file.domain, operation: "locking the preferences file")
        } catch {
            throw DefaultsError(.fileSystem, "locking the preferences file failed: \(error)", domain: file.domain)
        }
    }

    /// Checks for other processes' changes whenever a file in `Library/Preferences/`
    /// is replaced (creating the folder if needed); without a watch, only the periodic
    /// check runs.
    func startWatching() {
        #if os(Linux)
        let folder = container.preferencesDirectory
        guard (try? configuration.fileSystem.createDirectory(at: folder)) != nil else { return }
        watcher = DirectoryWatcher(directory: folder.path) { [weak self] in
            self?.checkForExternalChanges()
        }
        #endif
    }

    func stopWatching() {
        #if os(Linux)
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
