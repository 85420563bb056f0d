import AppSandbox
import ArgumentParser
import Foundation
import HomepwnerApp

#if Database
import KeepsakeCloud
#endif

/// `homepwner`: the Homepwner inventory as a web app on this machine.
@main
struct Homepwner: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "homepwner",
        abstract: "Serve Homepwner, the inventory app, from its own container.",
        discussion: """
            Items, photos and settings live in the app's container and survive restarts. \
            The page's visibility and focus drive the app's lifecycle; entering the \
            background saves, and so does SIGTERM before the server exits. With \
            --database, the items, photos and settings live in PostgreSQL instead, shared \
            with every instance using it; each page shows the others' changes as they \
            are saved. --database needs a build with the Database trait: \
            swift run --package-path Apps --traits Database homepwner --database URL.
            """)

    @Option(name: .long, help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on; 0 picks a free one. Default: $HOMEPWNER_PORT, else 8080.")
    var port: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Folder holding the app's container. Default: $KEEPSAKE_CONTAINERS, else $XDG_DATA_HOME/keepsake/containers.",
            valueName: "DIR"))
    var container: String?

    @Option(
        name: .customLong("allowed-host"),
        help: ArgumentHelp(
            "A host name requests may address besides --host and the loopback names (repeatable).",
            valueName: "NAME"))
    var allowedHosts: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A PostgreSQL database to share the inventory through. Default: $HOMEPWNER_DATABASE_URL, else none.",
            valueName: "postgres://USER@HOST:PORT/DB"))
    var database: String?

    @Option(
        name: .customLong("shared-name"),
        help: ArgumentHelp(
            "The name instances share the inventory under in the database (one database can hold several).",
            valueName: "NAME"))
    var sharedName = HomepwnerServer.identifier

    @Option(name: .long, help: "Largest photo accepted, in bytes.")
    var maxPhotoBytes: Int?

    @Option(
        name: .long,
        help: """
            Seconds the database keeps a deleted item's row and photo, so that an edit made \
            elsewhere meanwhile brings both back. Default: 30 days.
            """)
    var tombstoneRetention = 30 * 86_400

    @Option(name: .long, help: "Seconds a connection with no request in flight stays open.")
    var idleTimeout = 30

    @Option(
        name: .long,
        help: "Seconds a request's line and headers may take to arrive once its first byte has.")
    var headerTimeout = 10

    @Option(
        name: .long,
        help: """
            Most connections open at once. The one taking the last place closes the connection \
            idle longest; with every one busy, new ones wait to be accepted. \
            Default: the file descriptors allowed, less 256.
            """)
    var maxConnections: Int?

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
        if let maxPhotoBytes, maxPhotoBytes <= 0 { throw ValidationError("--max-photo-bytes must be positive") }
        if !(1...3_600).contains(idleTimeout) { throw ValidationError("--idle-timeout must be from 1 to 3600 seconds") }
        if !(1...300).contains(headerTimeout) {
            throw ValidationError("--header-timeout must be from 1 to 300 seconds")
        }
        if let maxConnections, maxConnections <= 0 { throw ValidationError("--max-connections must be positive") }
        if tombstoneRetention < 0 { throw ValidationError("--tombstone-retention must not be negative") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port =
            try self.port ?? environment["HOMEPWNER_PORT"].map { text in
                guard let value = Int(text), (0...65535).contains(value) else {
                    throw ValidationError("HOMEPWNER_PORT must be a port number, not \(text)")
                }
                return value
            } ?? 8080
        let appContainer = try AppContainer(
            identifier: HomepwnerServer.identifier,
            containersDirectory: container.map { URL(fileURLWithPath: $0, isDirectory: true) })
        var limits = Inventory.Limits()
        if let maxPhotoBytes { limits.maxPhotoBytes = maxPhotoBytes }
        let database = database ?? environment["HOMEPWNER_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if database != nil, !HomepwnerServer.canShareThroughDatabase {
            throw ValidationError(HomepwnerServer.builtWithoutDatabase.message)
        }
        let server = try await HomepwnerServer(
            container: appContainer, limits: limits, database: database, sharedName: sharedName,
            tombstoneRetention: .seconds(tombstoneRetention))
        let host = host
        #if Database
        let source = database.map { "the database \(CloudDatabase.redacted($0)) and " } ?? ""
        #else
        let source = ""
        #endif
        let connections = ConnectionLimits(
            idleTimeout: .seconds(idleTimeout), headerTimeout: .seconds(headerTimeout),
            maximumConnections: maxConnections)
        try await server.run(host: host, port: port, hostNames: allowedHosts, connections: connections) { bound in
            StandardStream.output.report(
                "Homepwner is serving http://\(host):\(bound)/ from \(source)\(appContainer.url.path)")
        }
    }
}
