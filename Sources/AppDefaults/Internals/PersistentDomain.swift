import PropertyList

/// A persistent domain as one ``Defaults`` sees it: the file's last known content
/// with this process's unsaved changes applied on top.
///
/// Not thread-safe by itself: every property is read and written under the owning
/// ``Defaults``' lock.
final class PersistentDomain {
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

    var name: String { file.domain }
    var isDirty: Bool { replaced || !pending.isEmpty }

    init(file: PreferencesFile) {
        self.file = file
        self.values = [:]
    }

    /// A copy of what a save needs, taken under the lock; clears the unsaved state.
    func takeSnapshot() -> Snapshot {
        let snapshot = Snapshot(pending: pending, replaced: replaced, values: values, version: version)
        pending = [:]
        replaced = false
        return snapshot
    }

    /// Puts back what a failed save took, under changes made since.
    func restore(_ snapshot: Snapshot) {
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

    struct Snapshot {
        var pending: [String: PropertyListValue?]
        var replaced: Bool
        var values: PropertyListDictionary
        var version: PreferencesFile.Version?
    }
}
