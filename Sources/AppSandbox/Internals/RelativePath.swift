/// The containment rules for a key, name or relative path given to a sandbox API,
/// checked on the text alone before anything on disk is touched.
enum RelativePath {
    /// Longest single name, in bytes (`NAME_MAX` on Linux and macOS).
    static let maxNameBytes = 255
    /// Longest relative path, in bytes (`PATH_MAX` on Linux).
    static let maxPathBytes = 4096

    /// Characters that render like `/` (or `\`) and would let a key look like a
    /// different path to a person or to another system it is copied to. None of them
    /// separates anything on Linux, so refusing them costs nothing legitimate.
    static let separatorLookAlikes: Set<Unicode.Scalar> = [
        "\\",       // REVERSE SOLIDUS: a separator on Windows
        "\u{2215}", // DIVISION SLASH
        "\u{2044}", // FRACTION SLASH
        "\u{FF0F}", // FULLWIDTH SOLIDUS
        "\u{29F8}", // BIG SOLIDUS
        "\u{2571}", // BOX DRAWINGS LIGHT DIAGONAL UPPER RIGHT TO LOWER LEFT
        "\u{1735}", // PHILIPPINE SINGLE PUNCTUATION
        "\u{FF3C}", // FULLWIDTH REVERSE SOLIDUS
        "\u{FE68}", // SMALL REVERSE SOLIDUS
    ]

    /// Characters that render like `.`; a name made only of dots and these reads as
    /// `.` or `..`.
    static let dotLookAlikes: Set<Unicode.Scalar> = [".", "\u{FF0E}", "\u{2024}", "\u{2025}", "\u{2026}", "\u{FE52}"]

    /// Splits `text` into checked components. A single trailing `/` is allowed (it
    /// names a directory); everything else that is not a plain name is refused.
    ///
    /// - Throws: ``SandboxError`` `.outsideContainer` for absolute paths and `..`,
    ///   `.invalidName` for empty, over-long, NUL-carrying or look-alike names.
    static func components(of text: String) throws(SandboxError) -> [String] {
        if text.isEmpty { throw SandboxError(.invalidName, "empty name") }
        if text.utf8.contains(0) { throw SandboxError(.invalidName, "name contains a NUL byte", path: printable(text)) }
        if text.utf8.count > maxPathBytes {
            throw SandboxError(.invalidName, "path longer than \(maxPathBytes) bytes", path: printable(text))
        }
        if text.hasPrefix("/") { throw SandboxError(.outsideContainer, "absolute path", path: text) }
        var parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count > 1, parts.last == "" { parts.removeLast() }
        for part in parts { try check(name: part, in: text) }
        return parts
    }

    /// Checks one name (no `/` allowed).
    static func check(name: String, in text: String) throws(SandboxError) {
        if name.isEmpty { throw SandboxError(.invalidName, "empty path component", path: text) }
        if name == ".." { throw SandboxError(.outsideContainer, "parent reference `..`", path: text) }
        if name == "." { throw SandboxError(.invalidName, "current-directory reference `.`", path: text) }
        if name.contains("/") || name.utf8.contains(0) { throw SandboxError(.invalidName, "separator in a name", path: printable(text)) }
        if name.utf8.count > maxNameBytes {
            throw SandboxError(.invalidName, "name longer than \(maxNameBytes) bytes", path: text)
        }
        if name.unicodeScalars.contains(where: separatorLookAlikes.contains) {
            throw SandboxError(.invalidName, "look-alike of a path separator", path: text)
        }
        if name.unicodeScalars.allSatisfy(dotLookAlikes.contains) {
            throw SandboxError(.invalidName, "look-alike of `.` or `..`", path: text)
        }
    }

    /// Names this layer creates for itself: in-flight temporary files, the previous
    /// version kept during a replace, the backup-exclusion list. Listings hide them.
    static let internalPrefix = ".keepsake-"

    static func isInternal(_ name: String) -> Bool { name.hasPrefix(internalPrefix) }

    private static func printable(_ text: String) -> String {
        text.replacingNULs()
    }
}

extension String {
    fileprivate func replacingNULs() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\0" ? "\u{2400}" : $0 }))
    }
}
