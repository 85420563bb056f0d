extension ItemStore {
    /// One change made through an ``ItemStore``, told to ``ItemStore/onDurableChanges``
    /// once it is durable: what a sync engine pushes, one item at a time, instead of
    /// comparing every item.
    ///
    /// Indexes are the item's as the change found or left it; later changes may have
    /// moved it since.
    public enum Change {
        case inserted(Model, at: Int)
        case removed(Model, at: Int)
        case replaced(Model, at: Int)
        case moved(Model, from: Int, to: Int)
        /// Any item may have changed: `allItems` was set, ``ItemStore/replaceAll(with:)``
        /// was called, the store was reloaded or rolled back, or a save found items of a
        /// class model changed in place.
        case replacedAll

        /// The item the change is about; `nil` for ``replacedAll``.
        public var item: Model? {
            switch self {
            case .inserted(let item, _), .removed(let item, _), .replaced(let item, _), .moved(let item, _, _): item
            case .replacedAll: nil
            }
        }

        /// Where the change left the item: its index after an insert, edit or move, the
        /// index it was removed from; `nil` for ``replacedAll``.
        public var index: Int? {
            switch self {
            case .inserted(_, let index), .removed(_, let index), .replaced(_, let index), .moved(_, _, let index):
                index
            case .replacedAll: nil
            }
        }
    }
}

extension ItemStore.Change: Sendable where Model: Sendable {}

extension ItemChange {
    /// This change as ``ItemStore/Change`` tells it, made on `items` before it applies.
    func told(on items: [Model]) -> ItemStore<Model>.Change {
        switch self {
        case .insert(let item, let index): .inserted(item, at: min(max(index, 0), items.count))
        case .remove(let index): items.indices.contains(index) ? .removed(items[index], at: index) : .replacedAll
        case .replace(let item, let index): .replaced(item, at: index)
        case .move(let from, let to):
            items.indices.contains(from) ? .moved(items[from], from: from, to: to) : .replacedAll
        case .replaceAll: .replacedAll
        }
    }
}
