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
        let (changes, firstError) = saveAll()
        // Observers may save again from their handlers: deliver after unlocking.
        announceErrors()
        deliver(changes)
        if let firstError { throw firstError }
    }

    /// Saves every dirty domain; the changes others' saves brought in, and the first error.
    func saveAll() -> ([DefaultsChange], DefaultsError?) {
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
        return (changes, firstError)
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
        let (saved, version, readFile) = try coordinate(writing: file) { () throws(DefaultsError) in
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
            return (base, try file.write(base), readFile)
        }
        lock.lock()
        if let corruption { reportLocked(corruption) }
        domain.version = version
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
    /// changed keys to observers. Runs when the file watch sees a change, every
    /// ``Configuration/externalChangeInterval``, and from ``synchronize()``.
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
            let known = domain.version
            lock.unlock()
            guard let (values, version) = readFile(of: domain, unlessAt: known) else { continue }
            lock.lock()
            domain.version = version
            if let values, !domain.replaced {
                let before = snapshotLocked()
                domain.values = domain.applyingPending(to: values)
                changes += diffLocked(from: before, isExternal: true)
            }
            // A corrupt file (now aside) leaves the view as it was: the next save writes
            // the last values known good.
            lock.unlock()
        }
        saveLock.unlock()
        announceErrors()
        deliver(changes)
    }

    /// Reads a domain's file for the first time.
    func load(_ domain: PersistentDomain) {
        // Called under `lock` from `persistentDomainLocked`; files are small.
        guard let (values, version) = readFile(of: domain, reportingLocked: true) else { return }
        domain.values = values ?? [:]
        domain.version = version
    }

    /// The file's values and their version; nil when the file is still at `known`, or
    /// could not be read (reported). A corrupt file is moved aside under the write lock
    /// and reported; its values are then nil, and its version nil (no file).
    private func readFile(
        of domain: PersistentDomain, unlessAt known: PreferencesFile.Version?? = .none, reportingLocked: Bool = false
    ) -> (PropertyListDictionary?, PreferencesFile.Version?)? {
        let file = domain.file
        let record: (DefaultsError) -> Void = { error in
            if reportingLocked { self.reportLocked(error) } else { self.report(error) }
        }
        do {
            // Without the lock first: files are replaced whole, so the bytes are one version.
            guard let bytes = try file.bytes() else { return known == .some(nil) ? nil : ([:], nil) }
            let version = PreferencesFile.Version(of: bytes)
            if known == .some(version) { return nil }
            if case .success(let values) = file.parse(bytes) { return (values, version) }
            return try coordinate(writing: file) { () throws(DefaultsError) in
                switch try file.read() {
                case .absent: return ([:], nil)
                case .values(let values, let version): return (values, version)
                case .corrupt(let error):
                    record(error)
                    return (nil, nil)
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
