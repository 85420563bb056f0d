import Foundation
public import PostgresNIO

extension PostgresClient.Configuration {
    /// The configuration of `url`, `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`
    /// (or `postgresql://`), without TLS: the stores talk to a server on the machine or
    /// its network. `nil` for a URL of another shape.
    public init?(url: String) {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
            let host = components.host, !host.isEmpty, let user = components.user
        else { return nil }
        let database = String(components.path.drop { $0 == "/" })
        self.init(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: .disable)
    }
}
