/// The host names a request may address in its `Host` header. A browser tricked by DNS
/// rebinding sends the attacker's name there, so anything else is refused.
///
/// ```swift
/// let hosts = AllowedHosts(bindingTo: "0.0.0.0", names: ["homepwner.local"])
/// hosts.allows(authority: "homepwner.local:8080")   // true
/// hosts.allows(authority: "evil.example:8080")      // false
/// ```
package struct AllowedHosts: Sendable {
    /// Lowercased names, without a port.
    package var names: Set<String>
    /// Whether any IPv4 or IPv6 literal is allowed: a server listening on every address
    /// is reached by whichever one the client used.
    package var allowsAddressLiterals: Bool

    package init(names: Set<String>, allowsAddressLiterals: Bool = false) {
        self.names = Set(names.map { $0.lowercased() })
        self.allowsAddressLiterals = allowsAddressLiterals
    }

    /// The loopback names, `127.0.0.1`, `::1` and `localhost`.
    package static let loopback = AllowedHosts(names: ["127.0.0.1", "::1", "localhost"])

    /// For a server bound to `host`: the loopback names, `host` itself, and `names`;
    /// any address literal when `host` is a wildcard (`0.0.0.0`, `::`).
    package init(bindingTo host: String, names: [String] = []) {
        let wildcard = host == "0.0.0.0" || host == "::" || host == "[::]"
        self.init(
            names: Self.loopback.names.union(wildcard ? [] : [Self.bare(host)]).union(names.map(Self.bare)),
            allowsAddressLiterals: wildcard)
    }

    /// Whether a `Host` header value (`name`, `name:port`, `[v6]:port`) names an
    /// allowed host.
    package func allows(authority: String) -> Bool {
        let host = Self.bare(Self.hostPart(of: authority))
        if names.contains(host) { return true }
        return allowsAddressLiterals && Self.isAddressLiteral(host)
    }

    /// `authority` without its port.
    private static func hostPart(of authority: String) -> Substring {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return authority[...close]
        }
        return authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    /// Lowercased, without IPv6 brackets or a trailing dot.
    private static func bare(_ host: some StringProtocol) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    private static func isAddressLiteral(_ host: String) -> Bool {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets.allSatisfy({ UInt8($0) != nil && $0.count <= 3 }) { return true }
        return host.contains(":") && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
}
