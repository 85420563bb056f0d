public import PostgresNIO
public import ServiceLifecycle
import Synchronization

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
/// settings change). A call that misses it fails with ``DatabaseTimeout``, and the
/// calls after it go to a fresh client. Why: postgres-nio's pool can stop answering
/// after the server went away. Seen here after a restart of the server: a pool made no
/// connection for minutes, and its callers waited on it forever, cancelled or not. The
/// stale client is shut down, with whatever it still runs.
public final class CloudDatabase: Service, Sendable {
    private let configuration: PostgresClient.Configuration
    private let state: Mutex<State>

    private struct State {
        var client: PostgresClient
        /// Tells ``run()`` that `client` was replaced.
        var replaced: AsyncStream<Void>.Continuation?
    }

    public init(configuration: PostgresClient.Configuration) {
        self.configuration = configuration
        state = Mutex(State(client: PostgresClient(configuration: configuration)))
    }

    /// - Parameter url: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
    /// - Throws: ``DatabaseURLError`` for a URL of another shape.
    public convenience init(url: String) throws(DatabaseURLError) {
        guard let configuration = PostgresClient.Configuration(url: url) else { throw DatabaseURLError(url: url) }
        self.init(configuration: configuration)
    }

    /// Runs the client, and each one that replaces it, until the task is cancelled or
    /// the service group shuts down.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.runClients() }
    }

    private func runClients() async {
        let (replacements, replaced) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        var running = state.withLock { state in
            state.replaced = replaced
            return state.client
        }
        // Not a child task: a pool that ignores its shutdown must not hold this one.
        var runner = Task { [running] in await running.run() }
        await withTaskCancellationHandler {
            for await _ in replacements {
                let next = state.withLock { $0.client }
                // Two replacements can be signalled for one look at the client.
                guard next !== running else { continue }
                runner.cancel()
                running = next
                runner = Task { await next.run() }
            }
        } onCancel: {
            replaced.finish()
        }
        runner.cancel()
        state.withLock { $0.replaced = nil }
    }

    /// The client that calls go to now.
    var client: PostgresClient { state.withLock { $0.client } }

    /// Puts a fresh client in place of `stale`, unless another call did already.
    func replace(_ stale: PostgresClient) {
        state.withLock { state in
            guard state.client === stale else { return }
            state.client = PostgresClient(configuration: configuration)
            state.replaced?.yield()
        }
    }
}

/// A database URL that is not `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
public struct DatabaseURLError: Error, CustomStringConvertible {
    public let url: String
    public var description: String { "not a postgres://USER@HOST[:PORT]/DATABASE URL: \(url)" }
}
