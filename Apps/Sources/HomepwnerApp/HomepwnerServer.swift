import AppLifecycle
import AppRuntime
import AppSandbox
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// Homepwner served over HTTP: the routes, the stores in the app's container, and
/// the application lifecycle that saves them.
///
/// The page's `visibilitychange`, `blur`, `focus` and `pagehide` arrive at
/// `POST /lifecycle` and become lifecycle triggers. `SIGTERM` and `SIGINT` first shut
/// the HTTP server down gracefully (no new requests; those in flight finish), then
/// terminate the app, which saves.
///
/// ```swift
/// let server = try HomepwnerServer(container: AppContainer(identifier: HomepwnerServer.identifier))
/// try await server.run(host: "127.0.0.1", port: 8080)
/// ```
package final class HomepwnerServer: Sendable {
    /// The book's bundle identifier, naming the container.
    package static let identifier = "com.bignerdranch.Homepwner"

    /// Whether this build can share through a database: the package's `Database` trait
    /// compiles the PostgreSQL client in.
    #if Database
    package static let canShareThroughDatabase = true
    #else
    package static let canShareThroughDatabase = false
    #endif

    /// Why a database cannot be used by this build, and how to get one that can.
    package static let builtWithoutDatabase = HomepwnerError(
        .databaseUnavailable,
        "this homepwner was built without a database client; build it with the Database trait: "
            + "swift run --package-path Apps --traits Database homepwner --database URL")

    package let inventory: Inventory
    package let log: LifecycleLog
    package let delegate: AppDelegate
    /// The app's lifecycle. Corresponds to `UIApplication.shared`.
    package let application: AppLifecycle.Application
    /// Logs the suspension that iOS gives no callback for.
    private let suspensionObserver: ObservationToken
    #if Database
    /// The database shared with other instances, when there is one.
    package let shared: SharedInventory?
    #endif

    /// Opens the stores (nothing is overwritten when what is saved cannot be read), on
    /// the main actor where they live.
    /// - Parameters:
    ///   - database: a `postgres://` URL: the items and settings are then shared with
    ///     every instance using it (see ``SharedInventory``); they stay in the container
    ///     too, which answers while the database is away.
    ///   - sharedName: the name of the shared inventory in the database.
    ///   - tombstoneRetention: how long the database keeps a deleted item's row and photo.
    /// - Throws: the stores' errors, e.g. `StoreError` `.corruptArchive`;
    ///   ``HomepwnerError`` `.databaseUnavailable` for a database in a build without
    ///   the `Database` trait.
    @MainActor
    package init(
        container: AppContainer, limits: Inventory.Limits = .init(), log: LifecycleLog = LifecycleLog(),
        database: String? = nil, sharedName: String = HomepwnerServer.identifier,
        tombstoneRetention: Duration = .seconds(30 * 86_400),
        configuration: AppLifecycle.Application.Configuration = .init(),
        scheduler: any AppRuntime.Scheduler = SystemScheduler()
    ) throws {
        self.log = log
        #if Database
        shared = try database.map {
            try SharedInventory(
                url: $0, name: sharedName, container: container, log: log, tombstoneRetention: tombstoneRetention)
        }
        inventory = try Inventory(container: container, limits: limits, sharedPhotos: shared?.photos)
        #else
        if database != nil { throw Self.builtWithoutDatabase }
        inventory = try Inventory(container: container, limits: limits)
        #endif
        delegate = AppDelegate(inventory: inventory, log: log)
        application = AppLifecycle.Application(delegate: delegate, configuration: configuration, scheduler: scheduler)
        suspensionObserver = application.addObserver(for: [.didSuspend]) { [log] _ in
            log.state = ApplicationState.suspended.rawValue
            log.record("(suspended: background time is over; iOS gives no callback for this)")
        }
    }

    /// What each page event does to the app.
    package static func trigger(for event: PageEvent) -> LifecycleTrigger {
        switch event {
        case .hidden, .pagehide: .hidden
        case .visible: .visible
        case .blur: .focusLost
        case .focus: .focusGained
        }
    }

    package var routes: HomepwnerRoutes {
        HomepwnerRoutes(inventory: inventory, lifecycle: log) { [log, application] event in
            log.record("page event: \(event.rawValue)")
            await application.send(Self.trigger(for: event))
            log.state = application.state.rawValue
        }
    }

    /// Launches the app and serves until `SIGTERM` or `SIGINT`, which save and end it.
    /// - Parameters:
    ///   - hostNames: names besides `host` and the loopback names that requests may
    ///     give in `Host` (see ``AllowedHosts``).
    ///   - onRunning: called with the bound port (useful with port 0).
    /// - Throws: the HTTP server's error (an address in use…); the app is then
    ///   terminated, which saves.
    package func run(
        host: String, port: Int, hostNames: [String] = [], connections: ConnectionLimits = .init(),
        onRunning: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        var logger = Logger(label: "Homepwner")
        logger.logLevel = .warning
        var routes = self.routes
        routes.allowedHosts = AllowedHosts(bindingTo: host, names: hostNames)
        let (seconds, attoseconds) = connections.idleTimeout.components
        let maximum = connections.resolvedMaximum()
        let roster = ConnectionRoster(maximum: maximum, headerTimeout: connections.headerTimeout)
        let http = Hummingbird.Application(
            router: routes.router(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [roster.handler()],
                    idleTimeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))),
            configuration: .init(
                address: .hostname(host, port: port), serverName: "Homepwner",
                availableConnectionsDelegate: MaximumAvailableConnections(maximum)),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
        // Signals belong to the lifecycle (SignalEventSource); the service group only
        // shuts the server down when the app has terminated.
        // Shut down in reverse: the server first, then the inventory's sync, then the
        // database client they used.
        #if Database
        let sharing: [any Service] = shared.map { [$0.database, $0.sync(inventory)] } ?? []
        #else
        let sharing: [any Service] = []
        #endif
        var configuration = ServiceGroupConfiguration(services: sharing + [http], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        configuration.maximumCancellationDuration = .seconds(5)
        let services = ServiceGroup(configuration: configuration)
        let application = self.application
        // Finishes when the HTTP server has stopped: no request is in flight any more.
        let (stopped, serverStopped) = AsyncStream<Never>.makeStream()
        // SIGTERM first stops the server accepting requests and lets those in flight
        // finish; only then does the app terminate and save, so every change the
        // server acknowledged is in the save.
        let signals = SignalEventSource(beforeTerminating: {
            await services.triggerGracefulShutdown()
            for await _ in stopped {}
        })
        // Nothing is served before SIGTERM is trapped: a SIGTERM sent as soon as the
        // server says it is serving then saves and stops the app, instead of killing it.
        let (untilTrapped, trapped) = AsyncStream<Never>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { serverStopped.finish() }
                for await _ in untilTrapped {}
                do {
                    try await services.run()
                } catch {
                    await application.send(.terminate)
                    throw error
                }
            }
            await application.run(sources: [Trapping(signals: signals, trapped: { trapped.finish() })])
            await services.triggerGracefulShutdown()
            try await group.next()
            group.cancelAll()
        }
    }
}

/// The app's signal source, calling `trapped` once its handlers are installed, or once
/// it has stopped without installing them.
private struct Trapping: LifecycleEventSource {
    let signals: SignalEventSource
    let trapped: @Sendable () -> Void

    func run(for application: AppLifecycle.Application) async throws {
        try await run(for: application, whenReady: {})
    }

    func run(for application: AppLifecycle.Application, whenReady ready: @escaping @Sendable () -> Void) async throws {
        defer { trapped() }
        try await signals.run(for: application) {
            trapped()
            ready()
        }
    }
}
