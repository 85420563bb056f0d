import Foundation

/// The settings page's choices, kept in user defaults under these keys and
/// registered on first run (`register(defaults:)`), as the seeds do.
package enum SettingsKey {
    package static let sortOrder = "sortOrder"
    package static let currencyFormat = "currencyFormat"
    package static let showSerialNumbers = "showSerialNumbers"
    package static let all = [sortOrder, currencyFormat, showSerialNumbers]

    /// The registration domain: what a first run shows.
    package static var registeredDefaults: [String: Any] {
        [
            sortOrder: SortOrder.manual.rawValue,
            currencyFormat: CurrencyFormat.dollars.rawValue,
            showSerialNumbers: true,
        ]
    }
}
