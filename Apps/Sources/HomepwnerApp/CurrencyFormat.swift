import Foundation

/// How values in dollars are shown.
package enum CurrencyFormat: String, CaseIterable, Sendable {
    /// `$1,234`
    case dollars
    /// `$1,234.00`
    case cents
    /// `1234 USD`
    case code

    package var title: String {
        switch self {
        case .dollars: "$1,234"
        case .cents: "$1,234.00"
        case .code: "1234 USD"
        }
    }

    package func format(_ value: Int) -> String {
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
