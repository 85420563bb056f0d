import AppDefaults
import AppSandbox
import ArgumentParser
import Foundation
import KeepsakeCommandLine
import PropertyList

/// `keepsake defaults read|write|delete|domains|export|import DOMAIN …`, shaped like
/// macOS `defaults`. DOMAIN is an app identifier (or an app group's): the domain of that
/// name in that container. Writes merge with what the app saves meanwhile, key by key.
struct DefaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract: "Read and write an app's user defaults (shaped like macOS defaults).",
        discussion: """
            DOMAIN is an app identifier; its preferences live in the app's container at \
            Library/Preferences/DOMAIN.plist.
            """,
        subcommands: [Read.self, Write.self, Delete.self, Domains.self, Export.self, Import.self]
    )

    /// Where the domain is: its app identifier, and optionally the folder of containers.
    struct DomainOptions: ParsableArguments {
        @Argument(help: "The domain: an app identifier (reverse DNS, e.g. com.example.Homepwner).")
        var domain: String

        @Option(
            help:
                "The folder holding containers. Default: $KEEPSAKE_CONTAINERS, else $XDG_DATA_HOME/keepsake/containers."
        )
        var containers: String?

        @Option(
            name: .customLong("lock-timeout"),
            help: "Seconds to wait for the domain's lock while another process holds it, then fail.")
        var lockTimeout: Double = 60

        func validate() throws {
            guard lockTimeout.isFinite, (0...86_400).contains(lockTimeout) else {
                throw ValidationError("--lock-timeout takes seconds from 0 to 86400.")
            }
        }

        func container() throws -> AppContainer {
            let folder = containers.map { URL(fileURLWithPath: $0) }
            guard let container = try? AppContainer(identifier: domain, containersDirectory: folder) else {
                throw ValidationError("'\(domain)' is not an app identifier (reverse DNS, e.g. com.example.Homepwner).")
            }
            return container
        }

        /// The domain's defaults: no command line, no watching, errors on standard error.
        func defaults() throws -> Defaults {
            var configuration = Defaults.Configuration()
            configuration.arguments = []
            // A one-shot command reads the files once. A watch would also hold the
            // defaults from its own thread while it checks, so the command's return could
            // leave the last reference there, and the journal's fold in `deinit` would run
            // on that thread as the process exits.
            configuration.externalChangeInterval = nil
            configuration.watchesFiles = false
            // A one-shot command waits its turn for the domain's lock, as `defaults`
            // waits for cfprefsd: an app's 5 s bound would fail a write queued behind
            // a burst of other writers on a slow disk.
            configuration.lockTimeout = .milliseconds(Int64(lockTimeout * 1_000))
            configuration.errorHandler = { error in
                StandardStream.error.report("keepsake: \(error)")
            }
            return Defaults(container: try container(), configuration: configuration)
        }

        /// The domain's stored values, nil when it has none.
        func storedValues(_ defaults: Defaults) -> PropertyListDictionary? {
            defaults.persistentValues(forName: domain)
        }

        /// The domain's stored values; exit 1 with `defaults`' message when it has none.
        func existingValues(_ defaults: Defaults) throws -> PropertyListDictionary {
            guard let values = storedValues(defaults) else { throw failure("Domain \(domain) does not exist") }
            return values
        }

        /// `defaults`' message for a key the domain does not hold.
        func missingKey(_ key: String) -> Error {
            failure("The domain/default pair of (\(domain), \(key)) does not exist")
        }
    }

    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read", abstract: "Print the domain, or the bare value of one key.")

        @OptionGroup var location: DomainOptions

        @Argument(help: "The key to print; the whole domain when absent.")
        var key: String?

        func run() throws {
            let defaults = try location.defaults()
            let values = try location.existingValues(defaults)
            if let key {
                guard let value = values[key] else {
                    throw location.missingKey(key)
                }
                print(DefaultsText.bare(value))
            } else {
                print(DefaultsText.render(.dictionary(values)))
            }
        }
    }

    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write",
            abstract: "Set one key.",
            discussion: """
                VALUE is a plist literal ('(a, b)', '{ k = v; }'), else a string. Typed: \
                -string S, -int N, -float N, -bool YES|NO, -date 2026-01-02T03:04:05Z, \
                -data HEX, -array V…, -array-add V…, -dict K V…, -dict-add K V… \
                (array and dictionary values may carry a type flag each).
                """
        )

        @OptionGroup var location: DomainOptions

        @Argument(help: "The key to set.")
        var key: String

        @Argument(parsing: .allUnrecognized, help: "The value, optionally after a type flag.")
        var value: [String] = []

        func run() throws {
            let defaults = try location.defaults()
            // Under the domain's cross-process lock: two `-array-add`s at once both land.
            try defaults.update(key) { current in try TypedValue.parse(value, current: current) }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Remove one key, or the whole domain.")

        @OptionGroup var location: DomainOptions

        @Argument(help: "The key to remove; every key when absent.")
        var key: String?

        func run() throws {
            let defaults = try location.defaults()
            let values = try location.existingValues(defaults)
            if let key {
                guard values[key] != nil else {
                    throw location.missingKey(key)
                }
                defaults.removeObject(forKey: key)
            } else {
                defaults.removePersistentDomain(forName: location.domain)
            }
            try defaults.flush()
        }
    }

    struct Domains: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "domains",
            abstract: "List the domains saved in the container, comma-separated.")

        @OptionGroup var location: DomainOptions

        func run() throws {
            let container = try location.container()
            // Listed through the container's resolver: a linked Library is not followed out.
            let names =
                FileManager.default.fileExists(atPath: container.url(for: .preferences).path)
                ? try container.directory(.preferences).contentsOfDirectory() : []
            let domains = names.filter { $0.hasSuffix(".plist") }.map { String($0.dropLast(6)) }
                .map { $0 == ".GlobalPreferences" ? Defaults.globalDomain : $0 }.sorted()
            print(domains.joined(separator: ", "))
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the domain as an XML plist to a file (- is standard output).")

        @OptionGroup var location: DomainOptions

        @Argument(help: "The file to write; - for standard output.")
        var path: String

        func run() throws {
            let defaults = try location.defaults()
            let values = try location.existingValues(defaults)
            try PropertyListOutput.write(try PropertyListWriter.xml.write(.dictionary(values)), to: path)
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Replace the domain with a plist dictionary read from a file (- is standard input).")

        @OptionGroup var location: DomainOptions

        @Argument(help: "A plist file in any format holding a dictionary; - for standard input.")
        var path: String

        func run() throws {
            guard case .dictionary(let values) = try PropertyListInput.read(path) else {
                throw failure("\(path) does not hold a dictionary")
            }
            let defaults = try location.defaults()
            try defaults.setPersistentValues(values, forName: location.domain)
            try defaults.flush()
        }
    }
}

/// Prints `message` to standard error and ends with exit status 1.
private func failure(_ message: String) -> ExitCode {
    StandardStream.error.report("keepsake: \(message)")
    return .failure
}
