import PropertyList

extension Defaults {
    /// Everything about a ``Defaults`` that changes, held in its `state` mutex and
    /// only ever touched inside `state.withLock`.
    ///
    /// A value type throughout (domains included), so nothing of it can be reached
    /// without the mutex.
    struct State: Sendable {
        var argumentValues: PropertyListDictionary
        var registrationValues = PropertyListDictionary()
        var volatileDomains: [String: PropertyListDictionary] = [:]
        /// Every persistent domain read so far, by name.
        var domains: [String: PersistentDomain] = [:]
        /// The names of the persistent part of the search list, in order; the first
        /// is the primary domain. Each is in ``domains``.
        var searchList: [String] = []
        var saveScheduled = false
        /// Scheduled saves that failed in a row, for the retry's back-off.
        var failedSaves = 0
        var observers: [String: [UInt64: @Sendable (DefaultsChange) -> Void]] = [:]
        var nextObserverID: UInt64 = 0
        var errors: [DefaultsError] = []
        /// Errors found under the mutex, handed to the error handler once it is released.
        var unannouncedErrors: [DefaultsError] = []
        /// The file watch; set once by the initializer.
        var watcher: (any Sendable)?

        init(argumentValues: PropertyListDictionary) {
            self.argumentValues = argumentValues
        }

        /// The value of `key` from the first domain of the search list that has it.
        func lookup(_ key: String) -> PropertyListValue? {
            if let value = argumentValues[key] { return value }
            for name in searchList {
                // Through the index, the domain is borrowed, not copied with all its parts.
                if let index = domains.index(forKey: name), let value = domains.values[index].values[key] {
                    return value
                }
            }
            return registrationValues[key]
        }

        /// The winning value of every key, to compare after a change of a whole domain.
        func winningValues() -> PropertyListDictionary {
            var result = registrationValues
            for name in searchList.reversed() {
                for (key, value) in domains[name]?.values ?? [:] { result[key] = value }
            }
            for (key, value) in argumentValues { result[key] = value }
            return result
        }

        /// The changes of winning values since `before` (from ``winningValues()``).
        func diff(from before: PropertyListDictionary, isExternal: Bool) -> [DefaultsChange] {
            let after = winningValues()
            var changes: [DefaultsChange] = []
            for (key, old) in before where after[key] != old {
                changes.append(DefaultsChange(key: key, oldValue: old, newValue: after[key], isExternal: isExternal))
            }
            for (key, new) in after where before[key] == nil {
                changes.append(DefaultsChange(key: key, oldValue: nil, newValue: new, isExternal: isExternal))
            }
            return changes
        }

        /// Rebuilds the domain called `name` as `base` (what its file holds now) with
        /// this process's unsaved changes on top.
        /// - Returns: the changes of winning values, as other processes' changes.
        mutating func rebase(_ name: String, onto base: PropertyListDictionary) -> [DefaultsChange] {
            guard let domain = domains[name] else { return [] }
            let before = winningValues()
            domains[name]?.values = domain.applyingPending(to: base)
            return diff(from: before, isExternal: true)
        }

        /// Takes a snapshot of every domain with unsaved changes, clearing them.
        mutating func takeDirtySnapshots() -> [(file: PreferencesFile, snapshot: PersistentDomain.Snapshot)] {
            let dirty = domains.values.filter(\.isDirty).map(\.name)
            var snapshots: [(file: PreferencesFile, snapshot: PersistentDomain.Snapshot)] = []
            for name in dirty {
                guard let file = domains[name]?.file, let snapshot = domains[name]?.takeSnapshot() else { continue }
                snapshots.append((file, snapshot))
            }
            return snapshots
        }

        /// Records `error`; call ``Defaults/announceErrors()`` once the mutex is released.
        mutating func report(_ error: DefaultsError) {
            errors.append(error)
            if errors.count > 100 { errors.removeFirst(errors.count - 100) }
            unannouncedErrors.append(error)
        }
    }
}
