#if Database
import Foundation
import KeyedArchive

/// What `Library/Application Support/shared-items.agreement` holds: what was last
/// agreed with the database, and, while a merge is on its way into the container, the
/// merge itself.
///
/// Why the merge: the agreement is written before the merged items reach the
/// container, so that the container never holds a version the agreement does not
/// know. A process killed between the two would otherwise restart with the old items
/// and the new agreement, and push the old items as changes of its own, undoing what
/// others saved. With the merge kept, the start does it again (``redo(on:)``).
struct AgreementFile: Codable {
    /// The backend's agreement (`PostgresItemStoreBackend.agreement()`).
    var agreement: Data
    /// The items a merge changed, each as the container held it before and should
    /// hold it after; empty once the container has them.
    var merge: [MergedItem] = []
    /// The order the merge left, by item key.
    var order: [String] = []

    struct MergedItem: Codable {
        var key: String
        /// The item's archive before the merge; nil when it was not there.
        var before: Data?
        /// Its archive after; nil when the merge removed it.
        var after: Data?
    }

    /// Reads a file written by ``encoded()``, or by a version that wrote the backend's
    /// agreement alone.
    init(_ data: Data) {
        if let file = try? JSONDecoder().decode(Self.self, from: data) {
            self = file
        } else {
            agreement = data
        }
    }

    init(agreement: Data, merging before: [Item], into after: [Item]) throws {
        self.agreement = agreement
        let old = Dictionary(before.map { ($0.itemKey, $0) }) { first, _ in first }
        let new = Dictionary(after.map { ($0.itemKey, $0) }) { first, _ in first }
        for key in Set(old.keys).union(new.keys).sorted() where old[key] != new[key] {
            merge.append(
                MergedItem(
                    key: key, before: try old[key].map { try KeyedArchiver.archivedData(withRootObject: $0) },
                    after: try new[key].map { try KeyedArchiver.archivedData(withRootObject: $0) }))
        }
        if !merge.isEmpty { order = after.map(\.itemKey) }
    }

    func encoded() throws -> Data { try JSONEncoder().encode(self) }

    /// `items` with the merge done again, when the container had not received it: each
    /// merged item still as it was before takes its merged version, and the items take
    /// the merge's order. nil when the container had it: no merged item is as it was
    /// before (an item changed here since is a change of this process's own).
    func redo(on items: [Item]) throws -> [Item]? {
        var byKey = Dictionary(items.map { ($0.itemKey, $0) }) { first, _ in first }
        var redone = false
        for item in merge {
            let current = try byKey[item.key].map { try KeyedArchiver.archivedData(withRootObject: $0) }
            guard current == item.before else { continue }
            byKey[item.key] = try item.after.flatMap {
                try KeyedUnarchiver.unarchivedStoredObject(ofClass: Item.self, from: $0)
            }
            redone = true
        }
        guard redone else { return nil }
        let position = Dictionary(order.enumerated().map { ($1, $0) }) { first, _ in first }
        let keys = items.map(\.itemKey) + merge.map(\.key).filter { key in !items.contains { $0.itemKey == key } }
        return keys.compactMap { byKey[$0] }.enumerated()
            .sorted {
                (position[$0.element.itemKey] ?? Int.max, $0.offset) < (
                    position[$1.element.itemKey] ?? Int.max, $1.offset
                )
            }
            .map(\.element)
    }
}
#endif
