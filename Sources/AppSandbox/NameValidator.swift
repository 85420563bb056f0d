/// The one check of a single name that becomes a file or folder name: a path
/// component in the sandbox, a blob-store key, a defaults domain, an app identifier.
///
/// The rules are the strictest any caller needs, so a name that passes here is safe
/// everywhere: not empty, not `.` or `..` (nor a look-alike made only of dots and
/// dot-like characters), no `/`, no NUL or other control character, no character that
/// renders like `/` or `\`, and at most 255 UTF-8 bytes (`NAME_MAX`). Callers add
/// their own rules (several components in a path, dot-separated labels in an app
/// identifier) and turn a ``Problem`` into their own typed error.
///
/// ```swift
/// if let problem = NameValidator.problem(in: key) {
///     throw StoreError(.invalidKey, problem.description, key: key)
/// }
/// ```
package enum NameValidator {
    /// Longest name, in UTF-8 bytes (`NAME_MAX` on Linux and macOS).
    package static let maxBytes = 255

    /// Why a name was refused.
    package enum Problem: Sendable, Equatable, CustomStringConvertible {
        case empty
        /// `.`, which names the folder it is in.
        case currentDirectory
        /// `..`, which leaves the folder it is in.
        case parentDirectory
        case separator
        /// NUL or another control character (`U+0000`–`U+001F`, `U+007F`–`U+009F`).
        case controlCharacter
        /// A character that renders like `/` or `\` (`\` included: a separator on Windows).
        case separatorLookAlike
        /// Only dots and characters that render like `.`: reads as `.` or `..`.
        case dotLookAlike
        case tooLong

        package var description: String {
            switch self {
            case .empty: "empty name"
            case .currentDirectory: "current-directory reference `.`"
            case .parentDirectory: "parent reference `..`"
            case .separator: "separator `/` in a name"
            case .controlCharacter: "NUL or control character in a name"
            case .separatorLookAlike: "look-alike of a path separator"
            case .dotLookAlike: "look-alike of `.` or `..`"
            case .tooLong: "name longer than \(NameValidator.maxBytes) bytes"
            }
        }
    }

    /// Characters that render like `/` (or `\`) and would let a name look like a
    /// different path to a person or to another system it is copied to. None of them
    /// separates anything on Linux, so refusing them costs nothing legitimate.
    package static let separatorLookAlikes: Set<Unicode.Scalar> = [
        "\\",  // REVERSE SOLIDUS: a separator on Windows
        "\u{2215}",  // DIVISION SLASH
        "\u{2044}",  // FRACTION SLASH
        "\u{FF0F}",  // FULLWIDTH SOLIDUS
        "\u{29F8}",  // BIG SOLIDUS
        "\u{2571}",  // BOX DRAWINGS LIGHT DIAGONAL UPPER RIGHT TO LOWER LEFT
        "\u{1735}",  // PHILIPPINE SINGLE PUNCTUATION
        "\u{29F5}",  // REVERSE SOLIDUS OPERATOR
        "\u{29F9}",  // BIG REVERSE SOLIDUS
        "\u{FF3C}",  // FULLWIDTH REVERSE SOLIDUS
        "\u{FE68}",  // SMALL REVERSE SOLIDUS
    ]

    /// Characters that render like `.`.
    package static let dotLookAlikes: Set<Unicode.Scalar> = [
        ".", "\u{FF0E}", "\u{2024}", "\u{2025}", "\u{2026}", "\u{FE52}",
    ]

    /// The first rule `name` breaks, or nil when it is an acceptable name.
    package static func problem(in name: String) -> Problem? {
        if name.isEmpty { return .empty }
        if name == "." { return .currentDirectory }
        if name == ".." { return .parentDirectory }
        if name.utf8.contains(UInt8(ascii: "/")) { return .separator }
        if name.unicodeScalars.contains(where: isControl) { return .controlCharacter }
        if name.utf8.count > maxBytes { return .tooLong }
        if name.unicodeScalars.contains(where: separatorLookAlikes.contains) { return .separatorLookAlike }
        if name.unicodeScalars.allSatisfy(dotLookAlikes.contains) { return .dotLookAlike }
        return nil
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
