import AppSandbox
import Foundation
import Hummingbird
import Logging

/// Homepwner served over HTTP: the routes, the stores in the app's container, and
/// the lifecycle that saves them.
///
/// ```swift
/// let server = try HomepwnerServer(container: AppContainer(identifier: HomepwnerServer.identifier))
/// try await server.run(host: "127.0.0.1", port: 8080)
/// ```
public final class HomepwnerServer: Sendable {
    /// The book's bundle identifier, naming the container.
    public static let identifier = "com.bignerdranch.Homepwner"

    public let inventory: Inventory
    public let log: LifecycleLog

    /// - Throws: the stores' errors when what is saved cannot be read.
    public init(container: AppContainer, limits: Inventory.Limits = .init(), log: LifecycleLog = LifecycleLog()) throws {
        self.log = log
        inventory = try Inventory(container: container, limits: limits)
    }

    public var routes: HomepwnerRoutes {
        HomepwnerRoutes(inventory: inventory, lifecycle: log) { [log] event in
            log.record("page event: \(event.rawValue)")
        }
    }

    /// Serves until `SIGTERM` or `SIGINT`, then saves.
    /// - Parameter onRunning: called with the bound port (useful with port 0).
    public func run(host: String, port: Int, onRunning: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        var logger = Logger(label: "Homepwner")
        logger.logLevel = .warning
        let app = Application(
            router: routes.router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "Homepwner"),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
        try await app.runService()
        try inventory.save()
    }
}
