public import AppSandbox
public import Foundation
public import PropertyList

/// User defaults that never lose data: a dictionary of property-list values that
/// saves itself into the container's `Library/Preferences/`.
///
/// Corresponds to `UserDefaults`. A value is looked up through the search list, first
/// match wins:
///
/// 1. the argument domain (``argumentDomain``): `-key value` pairs from the command
///    line, values parsed as plist literals (`-Rows 4`, `-Names '(a, b)'`);
/// 2. the primary persistent domain: the app's (its identifier) or the suite's;
/// 3. the app's own domain, when the primary one is a suite;
/// 4. suites added with ``addSuite(named:)``, in the order added;
/// 5. the global domain (``globalDomain``);
/// 6. the registration domain (``registrationDomain``), filled by ``register(defaults:)``.
///
/// Changes go to the primary domain and are saved without `synchronize()`: within
/// ``Configuration/writeDelay`` of the first unsaved change, coalesced, as a binary
/// plist replaced durably and atomically (`Library/Preferences/<domain>.plist`). Call
/// ``flush()`` (or ``applicationDidEnterBackground()``) to save at once; a normal
/// `exit` and releasing the ``Defaults`` save too. A process killed sooner than the
/// delay loses only the changes of that last delay, and never the file.
///
/// Several processes may share a domain (a suite in an app-group container): a save
/// takes a cross-process lock, reads what others saved and applies only this process's
/// changed keys on top, so no process loses another's keys and the last writer wins
/// per key. Others' changes are noticed by watching the file and delivered to
/// observers like local ones.
///
/// A preferences file that is not a plist dictionary is never read as empty and then
/// overwritten: it is moved aside as `<domain>.plist.corrupt-<timestamp>` and a
/// ``DefaultsError`` `.corruptFile` is reported (``reportedErrors``,
/// ``Configuration/errorHandler``).
///
/// ```swift
/// let defaults = Defaults(container: try AppContainer(identifier: "com.example.Homepwner"))
/// try defaults.register(defaults: ["cardMatrixRows": 4, "cardMatrixColumns": 3])
/// defaults.set(5, forKey: "cardMatrixRows")            // saved shortly, no synchronize()
/// let rows = defaults.integer(forKey: "cardMatrixRows") // 5
/// let token = defaults.observe("cardMatrixRows") { change in print(change.newValue ?? "removed") }
/// ```
public final class Defaults: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`; saves are ordered by
    // `saveLock`, taken before `lock` and never inside it.

    /// How a ``Defaults`` saves, watches and reports.
    public struct Configuration: Sendable {
        /// The longest a change waits before it is saved. Changes within it are saved together.
        public var writeDelay: Duration = .milliseconds(200)
        /// Watch `Library/Preferences/` (`inotify` on Linux) and check for other
        /// processes' changes as soon as a file there is replaced.
        public var watchesFiles = true
        /// How often the files are also checked for other processes' changes, for file
        /// systems and platforms without a watch; nil never checks (``synchronize()``
        /// still does).
        public var externalChangeInterval: Duration? = .seconds(2)
        /// The command line the argument domain is parsed from.
        public var arguments: [String] = CommandLine.arguments
        /// Runs deferred saves and checks; tests inject one they drive by hand.
        public var scheduler: any Scheduler = SystemScheduler()
        /// The cross-process locks taken around every save; processes sharing a suite
        /// must agree on its lock directory (the default does, per user).
        public var coordinator = FileCoordinator()
        /// Called with every error that no caller can catch: a corrupt file found while
        /// loading, a failed background save. nil writes them to standard error.
        public var errorHandler: (@Sendable (DefaultsError) -> Void)?
        /// Reads, writes and moves the files; tests inject failing system calls.
        package var fileSystem = FileSystem.default

        public init() {}
    }

    /// Corresponds to `UserDefaults.argumentDomain` (`NSArgumentDomain`).
    public static let argumentDomain = "NSArgumentDomain"
    /// Corresponds to `UserDefaults.registrationDomain` (`NSRegistrationDomain`).
    public static let registrationDomain = "NSRegistrationDomain"
    /// Corresponds to `UserDefaults.globalDomain` (`NSGlobalDomain`); its file is
    /// `Library/Preferences/.GlobalPreferences.plist`, as in an iOS container.
    public static let globalDomain = "NSGlobalDomain"
    /// Posted on `NotificationCenter.default` after every change, local or another
    /// process's, with the ``Defaults`` as object.
    /// Corresponds to `UserDefaults.didChangeNotification`.
    public static let didChangeNotification = Notification.Name("KeepsakeDefaultsDidChangeNotification")

    /// The container whose `Library/Preferences/` holds the files.
    public let container: AppContainer
    /// The primary domain, where changes go: the app identifier or the suite name.
    public let domainName: String
    let configuration: Configuration

    let lock = NSLock()
    let saveLock = NSLock()
    var argumentValues: PropertyListDictionary
    var registrationValues = PropertyListDictionary()
    var volatileDomains: [String: PropertyListDictionary] = [:]
    /// Every persistent domain read so far, by name.
    var domains: [String: PersistentDomain] = [:]
    /// The persistent part of the search list, in order.
    var searchList: [PersistentDomain] = []
    var saveScheduled = false
    /// Scheduled saves that failed in a row, for the retry's back-off.
    var failedSaves = 0
    var observers: [String: [UInt64: @Sendable (DefaultsChange) -> Void]] = [:]
    var nextObserverID: UInt64 = 0
    var errors: [DefaultsError] = []
    /// Set once by the initializer.
    var watcher: (any Sendable)?
    /// Errors found under the lock, handed to the error handler once it is released.
    var unannouncedErrors: [DefaultsError] = []

    /// The app's defaults: its domain named after ``AppContainer/identifier``.
    /// Corresponds to `UserDefaults.standard`.
    public convenience init(container: AppContainer, configuration: Configuration = Configuration()) {
        self.init(container: container, primary: container.identifier, configuration: configuration)
    }

    /// A suite's defaults: a domain shared by every process that opens it in the same
    /// container (an app-group container, for an app and its extensions).
    /// Corresponds to `UserDefaults(suiteName:)`.
    ///
    /// The usual suite is named after its app group and opened in the group's
    /// container (`AppContainer(identifier: "group.com.example.shared")`); a suite named
    /// like the container is then that container's own domain.
    /// - Throws: ``DefaultsError`` `.invalidDomain` when `suiteName` is ``globalDomain``
    ///   (Apple's initializer returns nil) or cannot name a file.
    public convenience init(
        suiteName: String, container: AppContainer, configuration: Configuration = Configuration()
    ) throws(DefaultsError) {
        guard suiteName != Self.globalDomain else {
            throw DefaultsError(.invalidDomain, "a suite cannot be the global domain", domain: suiteName)
        }
        try Self.validate(domainName: suiteName)
        self.init(container: container, primary: suiteName, configuration: configuration)
    }

    private init(container: AppContainer, primary: String, configuration: Configuration) {
        self.container = container
        self.domainName = primary
        self.configuration = configuration
        self.argumentValues = ArgumentDomain.parse(configuration.arguments)
        lock.lock()
        var names = [primary]
        if primary != container.identifier { names.append(container.identifier) }
        names.append(Self.globalDomain)
        searchList = names.map { persistentDomainLocked(named: $0) }
        lock.unlock()
        announceErrors()
        ExitFlush.register(self)
        schedulePoll()
        if configuration.watchesFiles { startWatching() }
    }

    deinit {
        stopWatching()
        ExitFlush.unregister(self)
        // Saves what is left; nothing is delivered or posted for an object going away.
        _ = saveAll()
        announceErrors()
    }

    // MARK: The search list

    /// The value of `key` from the first domain of the search list that has it.
    func lookupLocked(_ key: String) -> PropertyListValue? {
        if let value = argumentValues[key] { return value }
        for domain in searchList {
            if let value = domain.values[key] { return value }
        }
        return registrationValues[key]
    }

    /// The value of `key` through the search list, without coercion.
    /// Corresponds to `object(forKey:)`, typed as a property-list value.
    public subscript(key: String) -> PropertyListValue? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return lookupLocked(key)
        }
        set {
            store(newValue, forKey: key)
        }
    }

    /// Every key of the search list with the value that wins for it.
    /// Corresponds to `dictionaryRepresentation()`, typed as property-list values.
    public var values: PropertyListDictionary {
        lock.lock()
        defer { lock.unlock() }
        return snapshotLocked()
    }

    /// Corresponds to `dictionaryRepresentation()`.
    public func dictionaryRepresentation() -> [String: Any] {
        values.bridgedObject
    }

    /// Adds a suite's domain to the search list, after the app's domain and suites
    /// added before. Corresponds to `addSuite(named:)`.
    /// - Throws: ``DefaultsError`` `.invalidDomain` when the name cannot name a file.
    public func addSuite(named name: String) throws(DefaultsError) {
        try Self.validate(domainName: name)
        lock.lock()
        if !searchList.contains(where: { $0.name == name }) {
            searchList.insert(persistentDomainLocked(named: name), at: searchList.count - 1)
        }
        lock.unlock()
        announceErrors()
    }

    /// Removes a suite added with ``addSuite(named:)``. Corresponds to `removeSuite(named:)`.
    public func removeSuite(named name: String) {
        lock.lock()
        defer { lock.unlock() }
        guard name != domainName, name != container.identifier, name != Self.globalDomain else { return }
        searchList.removeAll { $0.name == name }
    }

    // MARK: Registration

    /// Fallback values, used only where no other domain has the key: never overrides
    /// a stored value. Corresponds to `register(defaults:)`.
    /// - Throws: ``DefaultsError`` `.notPropertyList`; nothing is registered then.
    public func register(defaults registrationDictionary: [String: Any]) throws(DefaultsError) {
        register(try DefaultsBridging.dictionary(from: registrationDictionary))
    }

    /// ``register(defaults:)`` with property-list values, which cannot fail.
    public func register(_ values: PropertyListDictionary) {
        var changes: [DefaultsChange] = []
        lock.lock()
        for (key, value) in values {
            let old = lookupLocked(key)
            registrationValues[key] = value
            let new = lookupLocked(key)
            if old != new { changes.append(DefaultsChange(key: key, oldValue: old, newValue: new, isExternal: false)) }
        }
        lock.unlock()
        deliver(changes)
    }

    // MARK: Domains

    /// Corresponds to `volatileDomainNames`: the argument and registration domains and
    /// those set with ``setVolatileDomain(_:forName:)``.
    public var volatileDomainNames: [String] {
        lock.lock()
        defer { lock.unlock() }
        return [Self.argumentDomain, Self.registrationDomain] + volatileDomains.keys.sorted()
    }

    /// A domain that lives only in memory. Corresponds to `volatileDomain(forName:)`.
    public func volatileDomain(forName name: String) -> [String: Any] {
        volatileValues(forName: name).bridgedObject
    }

    /// ``volatileDomain(forName:)`` as property-list values.
    public func volatileValues(forName name: String) -> PropertyListDictionary {
        lock.lock()
        defer { lock.unlock() }
        switch name {
        case Self.argumentDomain: return argumentValues
        case Self.registrationDomain: return registrationValues
        default: return volatileDomains[name] ?? [:]
        }
    }

    /// Sets a volatile domain. The argument and registration domains are searched;
    /// other volatile domains are not, as with Apple's.
    /// Corresponds to `setVolatileDomain(_:forName:)`.
    /// - Throws: ``DefaultsError`` `.notPropertyList`.
    public func setVolatileDomain(_ domain: [String: Any], forName name: String) throws(DefaultsError) {
        setVolatileValues(try DefaultsBridging.dictionary(from: domain), forName: name)
    }

    /// ``setVolatileDomain(_:forName:)`` with property-list values.
    public func setVolatileValues(_ values: PropertyListDictionary, forName name: String) {
        replaceSearched(name: name) { defaults in
            switch name {
            case Self.argumentDomain: defaults.argumentValues = values
            case Self.registrationDomain: defaults.registrationValues = values
            default: defaults.volatileDomains[name] = values
            }
        }
    }

    /// Corresponds to `removeVolatileDomain(forName:)`.
    public func removeVolatileDomain(forName name: String) {
        replaceSearched(name: name) { defaults in
            switch name {
            case Self.argumentDomain: defaults.argumentValues = [:]
            case Self.registrationDomain: defaults.registrationValues = [:]
            default: defaults.volatileDomains[name] = nil
            }
        }
    }

    /// A persistent domain's values (``globalDomain`` included), read from its file
    /// if this ``Defaults`` has not read it yet; nil when it has no values.
    /// Corresponds to `persistentDomain(forName:)`.
    public func persistentDomain(forName name: String) -> [String: Any]? {
        persistentValues(forName: name).map(\.bridgedObject)
    }

    /// ``persistentDomain(forName:)`` as property-list values.
    public func persistentValues(forName name: String) -> PropertyListDictionary? {
        guard (try? Self.validate(domainName: name)) != nil else { return nil }
        lock.lock()
        let values = persistentDomainLocked(named: name).values
        lock.unlock()
        announceErrors()
        return values.isEmpty ? nil : values
    }

    /// Replaces a persistent domain as a whole: keys not in `domain` are removed, also
    /// those another process saved. Corresponds to `setPersistentDomain(_:forName:)`.
    /// - Throws: ``DefaultsError`` `.notPropertyList` or `.invalidDomain`.
    public func setPersistentDomain(_ domain: [String: Any], forName name: String) throws(DefaultsError) {
        try setPersistentValues(try DefaultsBridging.dictionary(from: domain), forName: name)
    }

    /// ``setPersistentDomain(_:forName:)`` with property-list values.
    /// - Throws: ``DefaultsError`` `.invalidDomain`.
    public func setPersistentValues(_ values: PropertyListDictionary, forName name: String) throws(DefaultsError) {
        try Self.validate(domainName: name)
        replaceSearched(name: name) { defaults in
            let domain = defaults.persistentDomainLocked(named: name)
            domain.values = values
            domain.pending = [:]
            domain.replaced = true
            defaults.scheduleSaveLocked()
        }
    }

    /// Empties a persistent domain (its file is kept, empty).
    /// Corresponds to `removePersistentDomain(forName:)`.
    public func removePersistentDomain(forName name: String) {
        try? setPersistentValues([:], forName: name)
    }

    /// Runs `change` under the lock and notifies observers of every key whose winning
    /// value it changed.
    private func replaceSearched(name: String, _ change: (Defaults) -> Void) {
        lock.lock()
        let before = snapshotLocked()
        change(self)
        let changes = diffLocked(from: before, isExternal: false)
        lock.unlock()
        announceErrors()
        deliver(changes)
    }

    /// The winning value of every key, to compare after a change of a whole domain.
    func snapshotLocked() -> PropertyListDictionary {
        var result = registrationValues
        for domain in searchList.reversed() {
            for (key, value) in domain.values { result[key] = value }
        }
        for (key, value) in argumentValues { result[key] = value }
        return result
    }

    func diffLocked(from before: PropertyListDictionary, isExternal: Bool) -> [DefaultsChange] {
        let after = snapshotLocked()
        var changes: [DefaultsChange] = []
        for (key, old) in before where after[key] != old {
            changes.append(DefaultsChange(key: key, oldValue: old, newValue: after[key], isExternal: isExternal))
        }
        for (key, new) in after where before[key] == nil {
            changes.append(DefaultsChange(key: key, oldValue: nil, newValue: new, isExternal: isExternal))
        }
        return changes
    }

    /// The domain called `name`, loaded from its file on first use.
    func persistentDomainLocked(named name: String) -> PersistentDomain {
        if let domain = domains[name] { return domain }
        let fileName = name == Self.globalDomain ? ".GlobalPreferences.plist" : "\(name).plist"
        let file = PreferencesFile(
            domain: name, url: container.preferencesDirectory.appendingPathComponent(fileName),
            fileSystem: configuration.fileSystem)
        let domain = PersistentDomain(file: file)
        domains[name] = domain
        load(domain)
        return domain
    }

    /// A domain name must be one file name (``NameValidator``), short enough that
    /// `<name>.plist` and the durable replace's temporary names fit in one too.
    static func validate(domainName name: String) throws(DefaultsError) {
        if let problem = NameValidator.problem(in: name) {
            throw DefaultsError(.invalidDomain, "a domain name must be one file name: \(problem)", domain: name)
        }
        guard name.utf8.count <= 240 else {
            throw DefaultsError(.invalidDomain, "a domain name is at most 240 bytes", domain: name)
        }
    }

    // MARK: Errors

    /// Every error reported so far that no caller could catch (corrupt files found,
    /// failed background saves), oldest first; the last 100 are kept.
    public var reportedErrors: [DefaultsError] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }

    /// Records `error`; call ``announceErrors()`` once the lock is released.
    func reportLocked(_ error: DefaultsError) {
        errors.append(error)
        if errors.count > 100 { errors.removeFirst(errors.count - 100) }
        unannouncedErrors.append(error)
    }

    func report(_ error: DefaultsError) {
        lock.lock()
        reportLocked(error)
        lock.unlock()
        announceErrors()
    }

    /// Hands recorded errors to the error handler (or standard error), outside the lock.
    func announceErrors() {
        lock.lock()
        let pending = unannouncedErrors
        unannouncedErrors = []
        lock.unlock()
        for error in pending {
            if let handler = configuration.errorHandler {
                handler(error)
            } else {
                FileHandle.standardError.write(Data("keepsake defaults: \(error)\n".utf8))
            }
        }
    }
}
