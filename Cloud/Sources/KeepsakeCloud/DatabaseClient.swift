import Logging
import PostgresNIO

/// A store's calls to the ``CloudDatabase``, each bounded by the store's deadline.
///
/// A call that does not end within ``timeout`` fails with ``CloudDatabaseError`` (`.timedOut`, or
/// `.refused` when the server, asked then, refuses a connection), and the calls after
/// it go to a new client. So a call must be sized to end well within the
/// timeout (the key-value log pushes in batches), and a slow link needs a larger
/// timeout. A cancelled caller returns at once.
struct DatabaseClient: Sendable {
    let database: CloudDatabase
    /// How long a call may take, and how long a long-held connection may take to come.
    let timeout: Duration

    init(_ database: CloudDatabase, timeout: Duration) {
        self.database = database
        self.timeout = timeout
        database.noteDeadline(timeout)
    }

    /// `body`'s result on a connection of the current client, within ``timeout``.
    /// - Throws: what `body` throws; ``CloudDatabaseError`` (`.timedOut`, or `.refused`
    ///   when the server refused a connection), after which the client is replaced;
    ///   `CancellationError`.
    func withConnection<Value: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let client = database.client
        do {
            return try await withDeadline(timeout) {
                try await client.withConnection { connection in try await body(connection) }
            }
        } catch let error as CloudDatabaseError where error.code == .timedOut {
            database.replace(client)
            throw await database.refusal(within: Self.askingWhy) ?? error
        }
    }

    /// How long a call that timed out waits more to learn why from the server
    /// (``CloudDatabase/refusal(within:)``): a refused connection is refused at once,
    /// and a server that does not answer costs the caller this much at most.
    static let askingWhy: Duration = .seconds(1)

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
    /// - Throws: what `body` throws; ``CloudDatabaseError`` (`.timedOut`) when no connection came in
    ///   time, after which the client is replaced; `CancellationError`.
    func withLongConnection(_ body: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws {
        let client = database.client
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
        } catch let error as CloudDatabaseError where error.code == .timedOut {
            work.cancel()
            database.replace(client)
            throw await database.refusal(within: Self.askingWhy) ?? error
        } catch {
            work.cancel()
            throw error
        }
    }

    /// Runs until cancelled, calling `changed` once it listens on `channel` (for what
    /// came before) and then at each notification there naming `store`. A lost
    /// connection is logged and listened on again half a second later.
    func watch(channel: String, for store: String, logger: Logger, _ changed: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            do {
                try await withLongConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        // Listening now: whatever came before is read by the next sync.
                        changed()
                        for try await notification in notifications where notification.payload == store {
                            changed()
                        }
                    }
                }
            } catch {
                logger.debug("listening failed: \(error)")
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }
}
