import Logging
import PostgresNIO
import Synchronization

/// A PostgreSQL client that gives every call a deadline, and gives way to a fresh
/// client when a call finds it not answering.
///
/// Why: postgres-nio's pool can stop answering after the server went away. Seen here
/// after a restart of the server: a pool made no connection for minutes, and its
/// callers waited on it forever, cancelled or not. A call that does not end within
/// ``timeout`` fails with ``DatabaseTimeout``, and the calls after it go to a new
/// client; the old one is shut down, with whatever it still runs. So a call must be
/// sized to end well within the timeout (the key-value log pushes in batches), and a
/// slow link needs a larger timeout. A cancelled caller returns at once.
///
/// ``run()`` must be running, in a task of its own, for calls to be answered.
final class DatabaseClient: Sendable {
    /// How long a call may take, and how long a long-held connection may take to come.
    let timeout: Duration
    private let configuration: PostgresClient.Configuration
    private let state: Mutex<State>

    private struct State {
        var client: PostgresClient
        /// Tells ``run()`` that `client` was replaced.
        var replaced: AsyncStream<Void>.Continuation?
    }

    init(configuration: PostgresClient.Configuration, timeout: Duration) {
        self.configuration = configuration
        self.timeout = timeout
        state = Mutex(State(client: PostgresClient(configuration: configuration)))
    }

    /// Runs the client, and each one that replaces it, until the task is cancelled.
    func run() async {
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

    /// `body`'s result on a connection of the current client, within ``timeout``.
    /// - Throws: what `body` throws; ``DatabaseTimeout``, after which the client is
    ///   replaced; `CancellationError`.
    func withConnection<Value: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let client = client
        do {
            return try await withDeadline(timeout) {
                try await client.withConnection { connection in try await body(connection) }
            }
        } catch let error as DatabaseTimeout {
            replace(client)
            throw error
        }
    }

    /// `body`'s result in one transaction on a connection of the current client.
    /// - Throws: as ``withConnection(_:)``; when `body` throws, the transaction is rolled back.
    func withTransaction<Value: Sendable>(
        logger: Logger, _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        try await withConnection { connection in
            try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Runs `body` on a connection of the current client for as long as it takes
    /// (`LISTEN`); only getting the connection has to happen within ``timeout``.
    /// - Throws: what `body` throws; ``DatabaseTimeout`` when no connection came in
    ///   time, after which the client is replaced; `CancellationError`.
    func withLongConnection(_ body: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws {
        let client = client
        let (connected, connect) = AsyncStream<Void>.makeStream()
        let work = Task {
            defer { connect.finish() }
            try await client.withConnection { connection in
                connect.yield()
                try await body(connection)
            }
        }
        do {
            try await withDeadline(timeout) {
                for await _ in connected { break }
            }
            try await withDeadline(nil) { try await work.value }
        } catch let error as DatabaseTimeout {
            work.cancel()
            replace(client)
            throw error
        } catch {
            work.cancel()
            throw error
        }
    }

    /// Puts a fresh client in place of `stale`, unless another call did already.
    private func replace(_ stale: PostgresClient) {
        state.withLock { state in
            guard state.client === stale else { return }
            state.client = PostgresClient(configuration: configuration)
            state.replaced?.yield()
        }
    }
}
