import Locking
import Logging
public import PostgresNIO
public import PropertyList
public import ServiceLifecycle

/// The one PostgreSQL client of a process, shared by every cloud store in it, and run
/// as a service.
///
/// Make it once, give it to each store, and run it for as long as the stores are used,
/// in a `ServiceGroup` or a task of its own:
///
/// ```swift
/// let database = try CloudDatabase(url: "postgres://me@127.0.0.1:5432/app")
/// let settings = PostgresKeyValueSync(database: database, store: "com.example.Homepwner")
/// let items = PostgresItemStoreBackend<Item>(database: database, store: "com.example.Homepwner")
/// let services = ServiceGroup(services: [database, http], logger: logger)   // or: Task { try await database.run() }
/// ```
///
/// ``run()`` ends when the task is cancelled or the group shuts down gracefully, at
/// once, whatever the server does: a stopped or hung database never holds a shutdown.
///
/// Each store gives its calls a deadline of its own (a photo may take longer than a
/// settings change). A call that misses it fails with ``CloudDatabaseError`` (`.timedOut`), and the
/// calls after it go to a fresh client. Why: postgres-nio's pool can stop answering
/// after the server went away. Seen here after a restart of the server: a pool made no
/// connection for minutes, and its callers waited on it forever, cancelled or not. The
/// stale client is shut down once the longest deadline any store gave has passed, so
/// that another store's calls still within theirs (a photo's upload, a `LISTEN`) are
/// not cut short by it; or at once, when ``run()`` ends.
///
/// ``run()`` runs once: a second call, or one after it ended, throws
/// ``CloudDatabaseError``. Calls made before it starts wait for it, within their
/// deadlines.
public final class CloudDatabase: Service, Sendable {
    private let configuration: PostgresClient.Configuration
    /// How to open one connection outside the pool, to learn why the pool's did not
    /// come (``refusal(within:)``); `nil` for a configuration given whole, whose TLS settings
    /// cannot be read back.
    private let probe: PostgresConnection.Configuration?
    private let state: Locked<State>

    private struct State {
        var client: PostgresClient
        /// Tells ``run()`` that `client` was replaced.
        var replaced: AsyncStream<Void>.Continuation?
        var hasRun = false
        /// The longest deadline a store gave its calls: how long a replaced client
        /// may still be answering them.
        var longestDeadline: Duration = .zero
    }

    public convenience init(configuration: PostgresClient.Configuration) {
        self.init(configuration: configuration, probe: nil)
    }

    /// - Parameter url: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
    /// - Throws: ``CloudDatabaseError`` (`.invalidURL`) for a URL of another shape.
    public convenience init(url: String) throws(CloudDatabaseError) {
        guard let configuration = PostgresClient.Configuration(url: url), let host = configuration.host else {
            throw .invalidURL(url)
        }
        let probe = PostgresConnection.Configuration(
            host: host, port: configuration.port ?? 5432, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: .disable)
        self.init(configuration: configuration, probe: probe)
    }

    private init(configuration: PostgresClient.Configuration, probe: PostgresConnection.Configuration?) {
        self.configuration = configuration
        self.probe = probe
        state = Locked(State(client: PostgresClient(configuration: configuration)))
    }

    /// Runs the client, and each one that replaces it, until the task is cancelled or
    /// the service group shuts down.
    /// - Throws: ``CloudDatabaseError`` (`.alreadyRunning`) when it was run before.
    public func run() async throws {
        let (replacements, replaced) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let first = state.withLock { state in
            defer { state.hasRun = true }
            if !state.hasRun { state.replaced = replaced }
            return !state.hasRun
        }
        // postgres-nio's client runs once; a second run would stop the process.
        guard first else { throw CloudDatabaseError(.alreadyRunning, "CloudDatabase.run() was called twice") }
        await cancelWhenGracefulShutdown { await self.runClients(replacements) }
    }

    private func runClients(_ replacements: AsyncStream<Void>) async {
        var running = state.withLock { $0.client }
        // Not child tasks: a pool that ignores its shutdown must not hold this one.
        var runner = Task { [running] in await running.run() }
        var retiring: [Task<Void, Never>] = []
        await withTaskCancellationHandler {
            for await _ in replacements {
                let (next, grace) = state.withLock { ($0.client, $0.longestDeadline) }
                // Two replacements can be signalled for one look at the client.
                guard next !== running else { continue }
                let stale = runner
                retiring.append(
                    Task {
                        try? await Task.sleep(for: grace)
                        stale.cancel()
                    })
                running = next
                runner = Task { await next.run() }
            }
        } onCancel: {
            state.withLock { _ = $0.replaced?.finish() }
        }
        for task in retiring { task.cancel() }
        runner.cancel()
        state.withLock { $0.replaced = nil }
    }

    /// Notes a store's deadline: a replaced client keeps running this long.
    func noteDeadline(_ deadline: Duration) {
        state.withLock { $0.longestDeadline = max($0.longestDeadline, deadline) }
    }

    /// The client that calls go to now.
    var client: PostgresClient { state.withLock { $0.client } }

    /// Why no connection comes, as the server says it: one connection is opened
    /// outside the pool, within `budget`, and when the server refuses it (too many
    /// connections, a role that may not log in) or nothing accepts it, that is the
    /// error; `nil` when it opens, or does not answer either. A pool waiting for a
    /// connection keeps trying and never says why.
    func refusal(within budget: Duration) async -> CloudDatabaseError? {
        guard let probe else { return nil }
        var logger = Logger(label: "keepsake.cloud.probe")
        logger.logLevel = .critical
        do {
            let connection = try await withDeadline(budget) { [logger] in
                try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
            }
            try? await connection.close()
            return nil
        } catch let error as PSQLError {
            if let info = error.serverInfo, let message = info[.message] {
                return CloudDatabaseError(
                    .refused, "refused by the server: \(message) (SQLSTATE \(info[.sqlState] ?? "unknown"))")
            }
            guard error.code == .connectionError, let cause = error.underlying else { return nil }
            return CloudDatabaseError(
                .refused, "no connection to \(probe.host ?? "the server"):\(probe.port ?? 5432): \(cause)")
        } catch {
            return nil
        }
    }

    /// Puts a fresh client in place of `stale`, unless another call did already.
    func replace(_ stale: PostgresClient) {
        state.withLock { state in
            guard state.client === stale else { return }
            state.client = PostgresClient(configuration: configuration)
            state.replaced?.yield()
        }
    }
}

/// Why the database could not be used: the error ``CloudDatabase`` and every call
/// through it throw of their own, beside the database's.
public struct CloudDatabaseError: KeepsakeError {
    /// What went wrong: one of the codes below. New codes may be added; match the ones you handle.
    public typealias Code = ErrorCode<CloudDatabaseError>

    public var code: Code
    public var message: String
    /// With `.invalidURL`: the URL given, its password shown as `***`
    /// (``CloudDatabase/redacted(_:)``).
    public var url: String?
    /// With `.timedOut`: how long the call waited.
    public var timeout: Duration?

    public init(_ code: Code, _ message: String, url: String? = nil, timeout: Duration? = nil) {
        self.code = code
        self.message = message
        self.url = url.map(CloudDatabase.redacted)
        self.timeout = timeout
    }

    public var context: [String] { url.map { [$0] } ?? [] }

    static func invalidURL(_ url: String) -> Self {
        Self(.invalidURL, "not a postgres://USER@HOST[:PORT]/DATABASE URL", url: url)
    }

    static func timedOut(after timeout: Duration) -> Self {
        Self(.timedOut, "the database did not answer within \(timeout)", timeout: timeout)
    }

    /// The longest store name, in bytes of UTF-8: an app identifier's limit. A store's
    /// name goes into every write's notification, which PostgreSQL limits to 8,000
    /// bytes; past that, every write would fail after the caller had moved on.
    static let maximumStoreNameBytes = 255

    /// Throws `.invalidStoreName` for a name no store may have: empty, or longer than
    /// ``maximumStoreNameBytes``. Checked before a store's first exchange.
    static func checkStoreName(_ store: String) throws(CloudDatabaseError) {
        let bytes = store.utf8.count
        guard (1...maximumStoreNameBytes).contains(bytes) else {
            throw Self(
                .invalidStoreName,
                "a store's name is an app identifier of 1 to \(maximumStoreNameBytes) bytes, not \(bytes) bytes")
        }
    }
}

extension ErrorCode<CloudDatabaseError> {
    /// Lets `catch .timedOut` match a thrown ``CloudDatabaseError`` by its code.
    public static func ~= (code: Self, error: any Error) -> Bool { code.matches(error) }

    /// A database URL that is not `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`;
    /// ``CloudDatabaseError/url`` holds it, without its password.
    public static let invalidURL = Self("invalidURL")
    /// ``CloudDatabase/run()`` was called more than once.
    public static let alreadyRunning = Self("alreadyRunning")
    /// The database did not answer within ``CloudDatabaseError/timeout``.
    public static let timedOut = Self("timedOut")
    /// No connection came within ``CloudDatabaseError/timeout`` because the server
    /// refused it (too many connections for the role or the server, a role that may not
    /// log in, a wrong password), or nothing accepted it; the message says which.
    public static let refused = Self("refused")
    /// A store's name is empty or longer than 255 bytes; nothing was exchanged.
    public static let invalidStoreName = Self("invalidStoreName")
}

extension CloudDatabase {
    /// `url` with the password of its user part, if any, shown as `***`: what logs and
    /// messages print, which must never show it. Works on any text, a URL that does not
    /// parse included (`postgres://app:secret@db/x` → `postgres://app:***@db/x`).
    public static func redacted(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return url
        }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }
}
