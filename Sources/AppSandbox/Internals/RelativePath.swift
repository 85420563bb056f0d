/// The containment rules for a key, name or relative path given to a sandbox API,
/// checked on the text alone before anything on disk is touched.
enum RelativePath {
    /// Longest relative path, in bytes (`PATH_MAX` on Linux).
    static let maxPathBytes = 4096

    /// Splits `text` into components, each checked by ``NameValidator``. A single
    /// trailing `/` is allowed (it names a directory); everything else that is not a
    /// plain name is refused.
    ///
    /// - Throws: ``SandboxError`` `.outsideContainer` for absolute paths and `..`,
    ///   `.invalidName` for empty, over-long, control-character-carrying or look-alike names.
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

    /// Checks one component with ``NameValidator``: `..` leaves the container, every
    /// other problem is an invalid name.
    static func check(name: String, in text: String) throws(SandboxError) {
        guard let problem = NameValidator.problem(in: name) else { return }
        let code: SandboxError.Code = problem == .parentDirectory ? .outsideContainer : .invalidName
        throw SandboxError(code, problem.description, path: printable(text))
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
