import Foundation

/// How the item list is ordered.
package enum SortOrder: String, CaseIterable, Sendable {
    /// The store's order, changed by moving items.
    case manual
    case name
    /// Most valuable first.
    case value
    /// Newest first.
    case date

    package var title: String {
        switch self {
        case .manual: "Manual (move items)"
        case .name: "Name"
        case .value: "Value, highest first"
        case .date: "Date created, newest first"
        }
    }

    func sorted(_ items: [Item]) -> [Item] {
        switch self {
        case .manual: items
        case .name: items.sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
        case .value: items.sorted { $0.valueInDollars > $1.valueInDollars }
        case .date: items.sorted { $0.dateCreated > $1.dateCreated }
        }
    }
}
