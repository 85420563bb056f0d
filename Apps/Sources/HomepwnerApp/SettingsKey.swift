import Foundation

/// The settings page's choices, kept in user defaults under these keys and
/// registered on first run (`register(defaults:)`), as the seeds do.
public enum SettingsKey {
    public static let sortOrder = "sortOrder"
    public static let currencyFormat = "currencyFormat"
    public static let showSerialNumbers = "showSerialNumbers"
    public static let all = [sortOrder, currencyFormat, showSerialNumbers]

    /// The registration domain: what a first run shows.
    public static var registeredDefaults: [String: Any] {
        [
            sortOrder: SortOrder.manual.rawValue,
            currencyFormat: CurrencyFormat.dollars.rawValue,
            showSerialNumbers: true,
        ]
    }
}
