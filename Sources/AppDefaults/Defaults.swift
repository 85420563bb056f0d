public import AppRuntime
public import AppSandbox
public import Foundation
import Locking
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
/// ``Configuration/writeDelay`` of the first unsaved change, coalesced, durable first
/// in this process's journal of the domain, then as a binary plist replaced atomically
/// (`Library/Preferences/<domain>.plist`). Call ``flush()`` (or
/// ``applicationDidEnterBackground()``, which also folds the journal into the plist)
/// to save at once; a normal `exit` and releasing the ``Defaults`` save too. A process
/// killed sooner than the delay loses only the changes of that last delay, and never
/// the file.
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
public final class Defaults: Sendable {
    // Sendable as it is: every stored property is a `let` of a Sendable type, and all
    // that changes is in the `state` mutex.
    //
    // Two mutexes, always taken in this order, never the other way round:
    // 1. `saving`, held across a whole save or check for others' changes, disk I/O and
    //    cross-process lock included;
    // 2. `state`, held only briefly, to read or change ``State``.
    // Nothing takes `saving` while holding `state`. Observers, the notification and
    // the error handler are never called under `state`.

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
        /// The longest a save waits for the cross-process lock of a domain that another
        /// process holds; then it fails with `DefaultsError.Code.timedOut` (a
        /// scheduled save is retried later). The lock is
        /// `Library/Preferences/.keepsake-<domain>.plist.lock`, beside the file it
        /// guards, so every process that reaches the file reaches the lock.
        public var lockTimeout: Duration = .seconds(5)
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

    /// Everything that changes: values, domains, search list, observers, errors.
    let state: Locked<State>
    /// Serialises saves and checks for others' changes, so that two never interleave
    /// and a check never rebuilds a domain from a file while a save's changes are in
    /// neither the file nor `pending`. Held across disk I/O and the cross-process
    /// lock, so it is always taken before `state`, never while holding it.
    let saving = Locked<Void>(())

    /// The app's defaults: its domain named after `AppContainer.identifier`.
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
        self.state = Locked(State(argumentValues: ArgumentDomain.parse(configuration.arguments)))
        var names = [primary]
        if primary != container.identifier { names.append(container.identifier) }
        names.append(Self.globalDomain)
        state.withLock { [names] state in
            for name in names { loadDomain(named: name, in: &state) }
            state.searchList = names
        }
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
        closeJournals()
        announceErrors()
    }

    // MARK: The search list

    /// The value of `key` through the search list, without coercion.
    /// Corresponds to `object(forKey:)`, typed as a property-list value.
    public subscript(key: String) -> PropertyListValue? {
        get {
            state.withLock { $0.lookup(key) }
        }
        set {
            store(newValue, forKey: key)
        }
    }

    /// Every key of the search list with the value that wins for it.
    /// Corresponds to `dictionaryRepresentation()`, typed as property-list values.
    public var values: PropertyListDictionary {
        state.withLock { $0.winningValues() }
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
        state.withLock { state in
            guard !state.searchList.contains(name) else { return }
            loadDomain(named: name, in: &state)
            state.searchList.insert(name, at: state.searchList.count - 1)
        }
        announceErrors()
    }

    /// Removes a suite added with ``addSuite(named:)``. Corresponds to `removeSuite(named:)`.
    public func removeSuite(named name: String) {
        guard name != domainName, name != container.identifier, name != Self.globalDomain else { return }
        state.withLock { state in state.searchList.removeAll { $0 == name } }
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
        let changes = state.withLock { state in
            var changes: [DefaultsChange] = []
            for (key, value) in values {
                let old = state.lookup(key)
                state.registrationValues[key] = value
                let new = state.lookup(key)
                if old != new {
                    changes.append(DefaultsChange(key: key, oldValue: old, newValue: new, isExternal: false))
                }
            }
            return changes
        }
        deliver(changes)
    }

    // MARK: Domains

    /// Corresponds to `volatileDomainNames`: the argument and registration domains and
    /// those set with ``setVolatileDomain(_:forName:)``.
    public var volatileDomainNames: [String] {
        [Self.argumentDomain, Self.registrationDomain] + state.withLock { $0.volatileDomains.keys.sorted() }
    }

    /// A domain that lives only in memory. Corresponds to `volatileDomain(forName:)`.
    public func volatileDomain(forName name: String) -> [String: Any] {
        volatileValues(forName: name).bridgedObject
    }

    /// ``volatileDomain(forName:)`` as property-list values.
    public func volatileValues(forName name: String) -> PropertyListDictionary {
        state.withLock { state in
            switch name {
            case Self.argumentDomain: state.argumentValues
            case Self.registrationDomain: state.registrationValues
            default: state.volatileDomains[name] ?? [:]
            }
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
        replaceSearched { state in
            switch name {
            case Self.argumentDomain: state.argumentValues = values
            case Self.registrationDomain: state.registrationValues = values
            default: state.volatileDomains[name] = values
            }
        }
    }

    /// Corresponds to `removeVolatileDomain(forName:)`.
    public func removeVolatileDomain(forName name: String) {
        replaceSearched { state in
            switch name {
            case Self.argumentDomain: state.argumentValues = [:]
            case Self.registrationDomain: state.registrationValues = [:]
            default: state.volatileDomains[name] = nil
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
        let values = state.withLock { state in loadDomain(named: name, in: &state).values }
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
        replaceSearched { state in
            loadDomain(named: name, in: &state)
            state.domains[name]?.replace(with: values)
            scheduleSave(in: &state)
        }
    }

    /// Empties a persistent domain (its file is kept, empty).
    /// Corresponds to `removePersistentDomain(forName:)`.
    public func removePersistentDomain(forName name: String) {
        try? setPersistentValues([:], forName: name)
    }

    /// Runs `change` under the state mutex and notifies observers of every key whose
    /// winning value it changed.
    private func replaceSearched(_ change: (inout State) -> Void) {
        let changes = state.withLock { state in
            let before = state.winningValues()
            change(&state)
            return state.diff(from: before, isExternal: false)
        }
        announceErrors()
        deliver(changes)
    }

    /// The domain called `name`, read from its file on first use and kept in
    /// `state.domains`. Runs under the state mutex (files are small); errors are
    /// recorded in `state`, for ``announceErrors()`` once the mutex is released.
    @discardableResult
    func loadDomain(named name: String, in state: inout State) -> PersistentDomain {
        if let domain = state.domains[name] { return domain }
        let fileName = name == Self.globalDomain ? ".GlobalPreferences.plist" : "\(name).plist"
        let file = PreferencesFile(
            domain: name, url: container.url(for: .preferences).appendingPathComponent(fileName),
            directory: preferencesDirectory,
            coordinator: FileCoordinator(
                lockDirectory: nil, timeout: configuration.lockTimeout, system: configuration.fileSystem.systemCalls))
        var domain = PersistentDomain(file: file)
        recoverOrphanJournals(of: file) { state.report($0) }
        if let (values, version) = readFile(file, report: { state.report($0) }) {
            domain.values = values ?? [:]
            domain.version = version
        }
        state.domains[name] = domain
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

    /// The container's `Library/Preferences/`, with the configuration's system calls.
    var preferencesDirectory: SandboxDirectory {
        AppContainer(identifier: container.identifier, url: container.url, system: configuration.fileSystem.systemCalls)
            .directory(.preferences)
    }

    // MARK: Errors

    /// Every error reported so far that no caller could catch (corrupt files found,
    /// failed background saves), oldest first; the last 100 are kept.
    public var reportedErrors: [DefaultsError] {
        state.withLock { $0.errors }
    }

    func report(_ error: DefaultsError) {
        state.withLock { $0.report(error) }
        announceErrors()
    }

    /// Hands recorded errors to the error handler (or standard error), outside the
    /// state mutex.
    func announceErrors() {
        let pending = state.withLock { state in
            let pending = state.unannouncedErrors
            state.unannouncedErrors = []
            return pending
        }
        for error in pending {
            if let handler = configuration.errorHandler {
                handler(error)
            } else {
                StandardStream.error.report("keepsake defaults: \(error)")
            }
        }
    }
}
