import AppSandbox
import ArgumentParser
import Foundation

/// `keepsake sandbox show|backup|restore APP-ID`: an app container from the outside.
struct SandboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Inspect, back up and restore an app's container.",
        subcommands: [Show.self, Backup.self, Restore.self]
    )

    /// Where the container is: its app identifier, and optionally the folder of containers.
    struct ContainerOptions: ParsableArguments {
        @Argument(help: "The app identifier (reverse DNS, e.g. com.example.Homepwner).")
        var appID: String

        @Option(
            help:
                "The folder holding containers. Default: $KEEPSAKE_CONTAINERS, else $XDG_DATA_HOME/keepsake/containers."
        )
        var containers: String?

        func container() throws -> AppContainer {
            try AppContainer(identifier: appID, containersDirectory: containers.map { URL(fileURLWithPath: $0) })
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the container's directories, their sizes and what a backup includes.")

        @OptionGroup var location: ContainerOptions

        func run() throws {
            let container = try location.container()
            print(container.url.path)
            for row in try ContainerSummary(container: container).rows {
                let name = row.directory.pathComponents.joined(separator: "/")
                print(
                    "  \(name.padding(toLength: 28, withPad: " ", startingAt: 0))\(String(row.fileCount).leftPadded(6)) files \(byteCount(row.byteCount).leftPadded(10))"
                )
            }
            let plan = try BackupPlan(container: container)
            print(
                "backup: \(plan.items.count) items, \(byteCount(plan.totalBytes)) (Documents and Library; not Caches, tmp or excluded items)"
            )
        }
    }

    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup", abstract: "Write what the backup rules include to a ZIP file.")

        @OptionGroup var location: ContainerOptions

        @Option(name: [.short, .customLong("output")], help: "The ZIP file to write.")
        var output: String

        func run() throws {
            let plan = try SandboxBackup.write(container: try location.container(), to: URL(fileURLWithPath: output))
            print("\(output): \(plan.items.count) items, \(byteCount(plan.totalBytes))")
        }
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Restore a backup ZIP into the container, all or nothing; files not in it are kept.")

        @OptionGroup var location: ContainerOptions

        @Argument(help: "The ZIP file written by `keepsake sandbox backup`.")
        var backup: String

        @Option(help: "Refuse archives whose files hold more than this many bytes in all (default 4 GiB).")
        var maxBytes: UInt64?

        @Option(help: "Refuse archives with more entries than this (default 100000).")
        var maxEntries: Int?

        @Option(help: "Refuse entries over 1 MiB that inflate more than this many times their size (default 100).")
        var maxRatio: UInt64?

        func run() throws {
            // No createDirectories() first: a refused restore leaves the container exactly
            // as it was; the restore makes the directories it fills.
            let container = try location.container()
            var limits = SandboxBackup.Limits()
            if let maxBytes { limits.maxTotalBytes = maxBytes }
            if let maxEntries { limits.maxEntries = maxEntries }
            if let maxRatio { limits.maxCompressionRatio = maxRatio }
            let restored = try SandboxBackup.restore(
                from: URL(fileURLWithPath: backup), into: container, limits: limits)
            print("restored \(restored.count) items into \(container.url.path)")
        }
    }
}

/// Bytes in the units `ls -h` uses.
private func byteCount(_ bytes: Int64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
