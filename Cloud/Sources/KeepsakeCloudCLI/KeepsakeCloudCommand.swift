import AppSandbox
import ArgumentParser
import Foundation
import KeepsakeCloud
import KeepsakeCommandLine
import PropertyList

/// `keepsake-cloud status|get|set|remove|sync|grant`, which `keepsake cloud` runs: a
/// ubiquitous key-value store on a database, shaped like macOS `defaults`.
@main
struct KeepsakeCloudCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keepsake cloud",
        abstract: "Read and write an app's ubiquitous key-value store in PostgreSQL (shaped like defaults).",
        discussion: """
            STORE is the store's name, an app identifier (com.example.Homepwner). get, set \
            and remove work on the log in the database, as every replica will see it; sync \
            brings an app's own replica, in its container, in step with it; grant gives the \
            app a role of its own, which sees only its store's rows.
            """,
        subcommands: [Status.self, Get.self, Set.self, Remove.self, Sync.self, Grant.self]
    )

    struct StoreOptions: ParsableArguments {
        @Option(
            name: .long,
            help: ArgumentHelp(
                "The database. Default: $KEEPSAKE_DATABASE_URL.", valueName: "postgres://USER@HOST:PORT/DB"))
        var database: String?

        @Argument(help: "The store: an app identifier (reverse DNS, e.g. com.example.Homepwner).")
        var store: String

        /// The store's log, with its client running for as long as `body` does.
        func withLog<Result: Sendable>(
            _ body: @Sendable (PostgresKeyValueSync) async throws -> Result
        ) async throws -> Result {
            let store = store
            return try await withDatabase { database, _ in
                try await body(PostgresKeyValueSync(database: database, store: store))
            }
        }

        /// The database's client and its URL, the client running for as long as `body` does.
        func withDatabase<Result: Sendable>(
            _ body: @Sendable (CloudDatabase, _ url: String) async throws -> Result
        ) async throws -> Result {
            guard let url = database ?? ProcessInfo.processInfo.environment["KEEPSAKE_DATABASE_URL"] else {
                throw ValidationError("Give the database with --database or $KEEPSAKE_DATABASE_URL.")
            }
            let database: CloudDatabase
            do {
                database = try CloudDatabase(url: url)
            } catch {
                throw ValidationError(error.description)
            }
            let client = Task { try await database.run() }
            defer { client.cancel() }
            return try await body(database, url)
        }
    }

    struct ContainerOptions: ParsableArguments {
        @Option(
            help:
                "The folder holding containers. Default: $KEEPSAKE_CONTAINERS, else $XDG_DATA_HOME/keepsake/containers."
        )
        var containers: String?

        /// The app's container, where its replica of `store` lives.
        func container(of store: String) throws -> AppContainer {
            try AppContainer(identifier: store, containersDirectory: containers.map { URL(fileURLWithPath: $0) })
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Print the app's outbox, then the store's keys, size against Apple's limits, changes, replicas and quarantined rows.",
            discussion: """
                The outbox is read from the app's replica in its container, even while the \
                app runs, and printed before the database is asked: it shows what waits \
                while the database is away.
                """)

        @OptionGroup var location: StoreOptions
        @OptionGroup var local: ContainerOptions

        func run() async throws {
            print("store: \(location.store)")
            print("outbox: \(describeOutbox())")
            let (summary, quarantined) = try await location.withLog { log in
                (try await log.summary(), try await log.quarantinedRows())
            }
            let limits = UbiquitousStoreLimits()
            print("keys: \(summary.values.count) of \(limits.maxKeys)")
            print("bytes: \(summary.totalBytes) of \(limits.maxTotalBytes)")
            print(
                "changes: \(summary.changeCount) from \(summary.replicaCount) replicas, last at position \(summary.position)"
            )
            print("latest: \(summary.latest.map(\.description) ?? "none")")
            print("quarantined: \(quarantined.count) rows")
            if quarantined.count > 20 { print("  the newest 20:") }
            for row in quarantined.suffix(20) {
                // A key read from a row may be of any length, and hold anything.
                print(
                    "  \(row.table) \(row.key.prefix(80).debugDescription) at \(row.quarantinedAt.formatted(.iso8601)): \(row.reason)"
                )
            }
        }

        /// The app's outbox, or why it cannot be read: the log is still worth printing.
        private func describeOutbox() -> String {
            do {
                let container = try local.container(of: location.store)
                guard let outbox = try UbiquitousKeyValueStore.outbox(in: container) else {
                    return "no replica in \(container.url.path)"
                }
                let lastPush = outbox.lastPush.map { $0.formatted(.iso8601) } ?? "never"
                return "\(outbox.pendingChanges) changes pending, last push \(lastPush)"
            } catch {
                return "cannot be read: \(error)"
            }
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an app a database role of its own, limited to its store's rows, and print the app's URL.",
            discussion: """
                Run with --database as a role that owns the tables (or may create them) and may \
                create roles. Creates the tables, turns on row-level security, and makes the role \
                keepsake_STORE with a new password, printed in the app's URL this once. Running \
                it again changes nothing but the connection limit, and prints the URL with *** \
                for the password.
                """)

        @OptionGroup var location: StoreOptions

        @Option(help: "Most connections the app's role may hold at once; 0 for no limit.")
        var connectionLimit = CloudTenants.defaultConnectionLimit

        func validate() throws {
            if connectionLimit < 0 { throw ValidationError("--connection-limit must not be negative") }
        }

        func run() async throws {
            let store = location.store
            let limit = connectionLimit == 0 ? nil : connectionLimit
            let (grant, url) = try await location.withDatabase { database, url in
                (try await CloudTenants(database: database).grant(store: store, connectionLimit: limit), url)
            }
            guard let appURL = grant.url(replacingUserOf: url) else {
                throw ValidationError("'\(CloudDatabase.redacted(url))' is not a postgres:// URL.")
            }
            if grant.password == nil {
                print("role \(grant.role) exists for \(store); its password is unchanged and is not shown again")
            } else {
                print("role \(grant.role) made for \(store); its password is shown this once, in the app's URL:")
            }
            print(appURL)
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the store, or the bare value of one key.")

        @OptionGroup var location: StoreOptions

        @Argument(help: "The key to print; the whole store when absent.")
        var key: String?

        func run() async throws {
            let values = try await location.withLog { try await $0.summary() }.values
            guard let key else {
                print(DefaultsText.render(.dictionary(PropertyListDictionary(values.sorted { $0.key < $1.key }))))
                return
            }
            guard let value = values[key] else {
                throw CloudFailure("The store/key pair of (\(location.store), \(key)) does not exist")
            }
            print(DefaultsText.bare(value))
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set one key, as a change every replica will apply.",
            discussion: """
                VALUE is a plist literal ('(a, b)', '{ k = v; }'), else a string. Typed: \
                -string S, -int N, -float N, -bool YES|NO, -date 2026-01-02T03:04:05Z, \
                -data HEX, -array V…, -array-add V…, -dict K V…, -dict-add K V…. A change \
                that would break Apple's limits (1,024 keys, 1 MB, 64-byte keys) is refused.
                """)

        @OptionGroup var location: StoreOptions

        @Argument(help: "The key to set.")
        var key: String

        @Argument(parsing: .allUnrecognized, help: "The value, optionally after a type flag.")
        var value: [String] = []

        func run() async throws {
            let (key, arguments) = (key, value)
            try await location.withLog { log in
                try await log.update(key, replica: CloudFailure.replicaName) { current in
                    try TypedValue.parse(arguments, current: current)
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove one key, as a change every replica will apply.")

        @OptionGroup var location: StoreOptions

        @Argument(help: "The key to remove.")
        var key: String

        func run() async throws {
            let (key, store) = (key, location.store)
            try await location.withLog { log in
                try await log.update(key, replica: CloudFailure.replicaName) { current in
                    guard current != nil else {
                        throw CloudFailure("The store/key pair of (\(store), \(key)) does not exist")
                    }
                    return nil
                }
            }
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring an app's replica, in its container, in step with the database now.",
            discussion: "Pushes the changes the app made offline, then applies everyone else's.")

        @OptionGroup var location: StoreOptions
        @OptionGroup var local: ContainerOptions

        func run() async throws {
            let container = try local.container(of: location.store)
            // The app may have the store open: its journal is waited for, not shared.
            let store = try UbiquitousKeyValueStore(container: container, lockTimeout: .seconds(10))
            let pending = store.outbox.pendingChanges
            try await location.withLog { log in try await store.sync(with: log) }
            print("pushed \(pending) changes; \(store.dictionaryRepresentation.count) keys in \(container.url.path)")
        }
    }
}

/// A failure `defaults` reports on standard error with exit status 1.
struct CloudFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// The replica name of changes made from the command line.
    static let replicaName = "keepsake-cloud-\(ProcessInfo.processInfo.hostName)-\(getpid())"
}
