import Foundation

/// The settings page's choices, kept in user defaults under these keys and
/// registered on first run (`register(defaults:)`), as the seeds do.
public enum SettingsKey {
    public static let sortOrder = "sortOrder"
    public static let currencyFormat = "currencyFormat"
    public static let showSerialNumbers = "showSerialNumbers"

    /// The registration domain: what a first run shows.
    public static var registeredDefaults: [String: Any] {
        [
            sortOrder: SortOrder.manual.rawValue,
            currencyFormat: CurrencyFormat.dollars.rawValue,
            showSerialNumbers: true,
        ]
    }
}

/// How the item list is ordered.
public enum SortOrder: String, CaseIterable, Sendable {
    /// The store's order, changed by moving items.
    case manual
    case name
    /// Most valuable first.
    case value
    /// Newest first.
    case date

    public var title: String {
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

/// How values in dollars are shown.
public enum CurrencyFormat: String, CaseIterable, Sendable {
    /// `$1,234`
    case dollars
    /// `$1,234.00`
    case cents
    /// `1234 USD`
    case code

    public var title: String {
        switch self {
        case .dollars: "$1,234"
        case .cents: "$1,234.00"
        case .code: "1234 USD"
        }
    }

    public func format(_ value: Int) -> String {
        switch self {
        case .dollars: (value < 0 ? "-$" : "$") + Self.grouped(value.magnitude)
        case .cents: (value < 0 ? "-$" : "$") + Self.grouped(value.magnitude) + ".00"
        case .code: "\(value) USD"
        }
    }

    private static func grouped(_ value: UInt) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
