import PropertyList

/// A persistent domain as one ``Defaults`` sees it: the file's last known content
/// with this process's unsaved changes applied on top.
///
/// A value held in ``Defaults/State``, so it is read and changed only under the
/// owning ``Defaults``' state mutex.
struct PersistentDomain: Sendable {
    let file: PreferencesFile
    /// The file at ``version`` plus ``pending``.
    var values: PropertyListDictionary
    /// Changes not yet saved, per key; a nil value is a removal.
    var pending: [String: PropertyListValue?] = [:]
    /// The whole domain was replaced (`setPersistentDomain`): ``values`` is written as
    /// it is instead of being merged with the file.
    var replaced = false
    /// The file version ``values`` was built on; nil when there was no file.
    var version: PreferencesFile.Version?
    /// This process's journal of the domain, opened by its first save.
    var journal: PreferencesJournal?

    var name: String { file.domain }
    var isDirty: Bool { replaced || !pending.isEmpty }

    init(file: PreferencesFile) {
        self.file = file
        self.values = [:]
    }

    /// Sets (or removes, for nil) `key` and remembers it as unsaved.
    mutating func change(_ key: String, to value: PropertyListValue?) {
        values[key] = value
        pending[key] = .some(value)
    }

    /// Replaces the whole domain; the next save writes `newValues` as they are.
    mutating func replace(with newValues: PropertyListDictionary) {
        values = newValues
        pending = [:]
        replaced = true
    }

    /// A copy of what a save needs; clears the unsaved state.
    mutating func takeSnapshot() -> Snapshot {
        let snapshot = Snapshot(pending: pending, replaced: replaced, values: values, version: version)
        pending = [:]
        replaced = false
        return snapshot
    }

    /// Puts back what a failed save took, under changes made since.
    mutating func restore(_ snapshot: Snapshot) {
        for (key, value) in snapshot.pending where pending.index(forKey: key) == nil {
            pending[key] = .some(value)
        }
        replaced = replaced || snapshot.replaced
    }

    /// `base` with the unsaved changes applied (or ``values`` when the domain was replaced).
    func applyingPending(to base: PropertyListDictionary) -> PropertyListDictionary {
        if replaced { return values }
        var result = base
        for (key, value) in pending { result[key] = value }
        return result
    }

    struct Snapshot: Sendable {
        var pending: [String: PropertyListValue?]
        var replaced: Bool
        var values: PropertyListDictionary
        var version: PreferencesFile.Version?
    }
}
