import ArgumentParser
import KeyedArchive

/// `keepsake port-check [--archive FILE] PATH…`: reports the Foundation calls in Swift
/// sources that compile on Linux but bypass Keepsake, as `file:line:column: warning: …`;
/// exit 1 when there is any. With `--archive`, the secure replacement suggested for each
/// deprecated unarchiving call lists the classes that sample archive needs.
///
/// The checker reads syntax trees with swift-syntax, which the library does not depend
/// on: it is the `keepsake-port-check` executable of the repository's `Tools` package
/// (a ``CompanionCommand``).
struct PortCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port-check",
        abstract: "Report Foundation calls that compile on Linux but bypass Keepsake (runs keepsake-port-check)."
    )

    @Argument(help: "Swift files, or folders searched for them.")
    var paths: [String]

    @Option(help: "A sample archive the code reads, whose classes the secure replacements list.")
    var archive: String?

    static let tool = CompanionCommand(name: "keepsake-port-check", package: "Tools")

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("Name at least one file or folder.") }
    }

    func run() throws {
        var arguments = paths
        if let archive {
            let classes = try ArchiveClassUsage(archive: PropertyListInput.bytes(archive)).requiredClasses
            arguments = ["--classes", classes.joined(separator: ",")] + arguments
        }
        try Self.tool.replaceProcess(command: "port-check", arguments: arguments)
    }
}
